#nullable enable

using System;
using System.Threading.Tasks;
using ModelContextProtocol;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using ApiSecrets = global::__CLIENT_NAMESPACE__.ApiSecrets;

namespace __NAMESPACE__;

/// <summary>
/// How a resource (McpResources) is read: through its operation's tool, so that credentials, the answer's length
/// limit, redaction and error messages are the tool's own. An answer the tool gives as <c>Error: …</c> (the API's
/// reason, or why no answer came) is an MCP error with that message, which the client shows.
/// </summary>
public static class McpResourceSupport
{
    private const string ErrorPrefix = "Error: ";

    /// <summary>The resource's text: the tool's answer, secrets redacted; a failed call is an MCP error.</summary>
    public static async Task<string> ReadAsync(Task<string> answer)
    {
        var text = ApiSecrets.Redact(await answer.ConfigureAwait(false));
        if (text.StartsWith(ErrorPrefix, StringComparison.Ordinal))
        {
            throw new McpException(text[ErrorPrefix.Length..]);
        }
        return text;
    }

    /// <summary>
    /// The read-resource filter: a URI that matches a template but whose values do not fit its parameters (a word
    /// where a number goes) is answered as invalid params, saying which, instead of as an internal error.
    /// </summary>
    public static McpRequestFilter<ReadResourceRequestParams, ReadResourceResult> CheckReads { get; } = next => async (context, cancellationToken) =>
    {
        try
        {
            return await next(context, cancellationToken);
        }
        catch (Exception exception) when (exception is FormatException or OverflowException or ArgumentException)
        {
            var template = (context.MatchedPrimitive as McpServerResource)?.ProtocolResourceTemplate.UriTemplate;
            throw new McpProtocolException(ApiSecrets.Redact($"Invalid resource URI {context.Params?.Uri}: it does not fit {template}: {exception.Message}"), McpErrorCode.InvalidParams);
        }
    };
}
