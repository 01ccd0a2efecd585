#nullable enable

using System;
using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Threading;
using System.Threading.RateLimiting;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.RateLimiting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace __NAMESPACE__;

/// <summary>
/// What one caller may ask of a shared HTTP server, and how it stops.
/// <list type="bullet">
/// <item>Rate: each caller (<see cref="McpCaller"/>: the token's subject, else the client's address) has a token bucket
/// of <see cref="Burst"/> requests, refilled at <see cref="PerMinute"/> a minute. Every POST to /mcp takes one (a tool
/// call is one POST; so are initialize and tools/list): the body is not read to tell them apart. Over the limit: 429 with
/// <c>Retry-After</c> and a JSON-RPC error. With <see cref="Shared"/> the buckets are on Redis, one per caller for all
/// the replicas (each replica's own while Redis is away); without it the limit holds per process.</item>
/// <item>Size: a request whose Content-Length is over <see cref="MaxRequestBytes"/> gets 413 before its body is read;
/// Kestrel ends a chunked body that grows past it.</item>
/// <item>Stop: on SIGTERM the server stops listening, finishes the requests in flight for at most <see cref="Drain"/>,
/// then ends what <see cref="OnStopped"/> lists (interpreter processes) and exits 0.</item>
/// </list>
/// </summary>
internal sealed class McpHttpLimits
{
    /// <summary>Requests to /mcp one caller may make a minute (0: no limit).</summary>
    public required double PerMinute { get; init; }

    /// <summary>Requests one caller may make at once after a pause: the bucket's size.</summary>
    public required double Burst { get; init; }

    /// <summary>The largest request body, in bytes.</summary>
    public required long MaxRequestBytes { get; init; }

    /// <summary>How long requests in flight may take to finish once the server is told to stop.</summary>
    public required TimeSpan Drain { get; init; }

    /// <summary>Where set, the replicas' shared state: each caller's bucket is on Redis.</summary>
    public McpSharedState? Shared { get; init; }

    /// <summary>Run once the requests in flight are done (or the drain is over), before the process exits.</summary>
    public Action? OnStopped { get; init; }

    /// <summary>Seconds a refused caller waits for the next request: the time the bucket takes to refill one.</summary>
    private int RetryAfterSeconds => (int)Math.Max(1, Math.Ceiling(60 / PerMinute));

    /// <summary>Builder: the body size limit, the drain, and the rate limiter.</summary>
    public void AddServices(WebApplicationBuilder builder)
    {
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Limits.MaxRequestBodySize = MaxRequestBytes);
        builder.Services.Configure<HostOptions>(host => host.ShutdownTimeout = Drain);
        if (PerMinute <= 0) return;
        builder.Services.AddRateLimiter(options =>
        {
            var local = PartitionedRateLimiter.Create<HttpContext, string>(Partition);
            options.GlobalLimiter = Shared?.RateLimiter(local, LimitedCaller, (int)Burst, PerMinute) ?? local;
            options.OnRejected = RefuseRateAsync;
        });
    }

    /// <summary>App, after authentication (a caller is its subject when it has one): the size check, then the rate limit.</summary>
    public void Use(WebApplication app)
    {
        var logger = app.Services.GetRequiredService<ILoggerFactory>().CreateLogger("McpHttpLimits");
        app.Lifetime.ApplicationStopping.Register(() => logger.LogInformation("Stopping: no new connections; requests in flight have {Seconds} s to finish", Drain.TotalSeconds));
        if (OnStopped is { } stopped) app.Lifetime.ApplicationStopped.Register(stopped);
        app.Use(CheckSizeAsync);
        if (PerMinute > 0) app.UseRateLimiter();
    }

    /// <summary>The caller a request counts against: every POST to /mcp counts; nothing else does (null).</summary>
    private static string? LimitedCaller(HttpContext context) =>
        HttpMethods.IsPost(context.Request.Method) && context.Request.Path.StartsWithSegments("/mcp", StringComparison.Ordinal)
            ? McpCaller.Of(context.User.FindFirst("sub")?.Value, context.Connection.RemoteIpAddress)
            : null;

    private RateLimitPartition<string> Partition(HttpContext context)
    {
        if (LimitedCaller(context) is not { } caller)
        {
            return RateLimitPartition.GetNoLimiter("");
        }
        return RateLimitPartition.GetTokenBucketLimiter(caller, _ => new TokenBucketRateLimiterOptions
        {
            TokenLimit = (int)Burst,
            // Refilled in proportion to the time passed (checked every 100 ms): PerMinute a minute, smoothly.
            TokensPerPeriod = (int)Math.Ceiling(PerMinute),
            ReplenishmentPeriod = TimeSpan.FromMinutes(1),
            QueueLimit = 0,
            AutoReplenishment = false,
        });
    }

    private async Task CheckSizeAsync(HttpContext context, RequestDelegate next)
    {
        var limit = MaxRequestBytes.ToString(CultureInfo.InvariantCulture);
        if (context.Request.ContentLength is { } length && length > MaxRequestBytes)
        {
            // Nothing of the body is read; an HTTP/1 connection is closed after the answer rather than drained.
            CloseAfter(context);
            await RefuseAsync(context, StatusCodes.Status413PayloadTooLarge, -32600, $"Request too large: {length.ToString(CultureInfo.InvariantCulture)} bytes, over the limit of {limit}");
            return;
        }
        try
        {
            await next(context);
        }
        catch (BadHttpRequestException error) when (error.StatusCode == StatusCodes.Status413PayloadTooLarge && !context.Response.HasStarted)
        {
            // A body without a Content-Length (chunked) that grew past the limit: Kestrel stopped reading it.
            CloseAfter(context);
            await RefuseAsync(context, StatusCodes.Status413PayloadTooLarge, -32600, $"Request too large: over the limit of {limit} bytes");
        }
    }

    /// <summary>HTTP/1 only: HTTP/2 and 3 have no Connection header (a stream ends, not the connection).</summary>
    private static void CloseAfter(HttpContext context)
    {
        if (HttpProtocol.IsHttp11(context.Request.Protocol) || HttpProtocol.IsHttp10(context.Request.Protocol))
        {
            context.Response.Headers.Connection = "close";
        }
    }

    private ValueTask RefuseRateAsync(OnRejectedContext rejected, CancellationToken cancellationToken)
    {
        var context = rejected.HttpContext;
        var seconds = RetryAfterSeconds;
        context.Response.Headers.RetryAfter = seconds.ToString(CultureInfo.InvariantCulture);
        var rate = PerMinute.ToString(CultureInfo.InvariantCulture);
        var burst = Burst.ToString(CultureInfo.InvariantCulture);
        return new ValueTask(RefuseAsync(context, StatusCodes.Status429TooManyRequests, -32000,
            $"Too many requests: this server takes {rate} requests a minute from one caller ({burst} at once); retry after {seconds} s"));
    }

    private static readonly JsonSerializerOptions Relaxed = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    private static Task RefuseAsync(HttpContext context, int status, int code, string message)
    {
        context.Response.StatusCode = status;
        context.Response.ContentType = "application/json";
        var error = new { jsonrpc = "2.0", id = (object?)null, error = new { code, message } };
        return context.Response.WriteAsync(JsonSerializer.Serialize(error, Relaxed));
    }
}

/// <summary>Program.cs's calls: the limits in place.</summary>
internal static class McpHttpLimitsSetup
{
    /// <summary>The body size limit, the drain on stop, and the rate limiter.</summary>
    public static WebApplicationBuilder AddMcpHttpLimits(this WebApplicationBuilder builder, McpSettings settings)
    {
        settings.Limits.AddServices(builder);
        return builder;
    }

    /// <summary>After authentication (a caller is its subject when it has one): the size check, then the rate limit.</summary>
    public static WebApplication UseMcpHttpLimits(this WebApplication app, McpSettings settings)
    {
        settings.Limits.Use(app);
        return app;
    }
}
