#nullable enable

using System;
using System.Net;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Http.Resilience;
using Microsoft.Extensions.Logging;
using Polly;
using __CLIENT_NAMESPACE__;

namespace __NAMESPACE__;

/// <summary>The host's own wiring, which Program.cs calls: its logging, and the HttpClient the tools are given.</summary>
internal static class McpHostSetup
{
    /// <summary>
    /// Console logging __LOGGING_WHERE__. The frameworks' own lines only from warnings up, as ASP.NET Core's templates
    /// set them: the audit line says what each call asked and sent, where ASP.NET Core, the MCP SDK, the HttpClient and
    /// Polly would each write a line or two more per call (most of a busy server's logging). A setting for a narrower
    /// category (Logging__LogLevel__ModelContextProtocol.Server=Information) brings one back.
    /// </summary>
    public static IHostApplicationBuilder AddMcpLogging(this IHostApplicationBuilder builder)
    {
        builder.Logging.ClearProviders();
        builder.Logging.AddConsole(__CONSOLE_OPTIONS__);
        foreach (var category in FrameworkCategories)
        {
            builder.Logging.AddFilter(category, LogLevel.Warning);
        }
        return builder;
    }

    /// <summary>The categories whose lines are only warnings and errors.</summary>
    private static readonly string[] FrameworkCategories = ["System.Net.Http.HttpClient", "Microsoft.AspNetCore", "ModelContextProtocol", "Polly"];

    /// <summary>
    /// Every HttpClient the tools are given is the API's: its base address, timeout and headers from the settings, and
    /// the credentials each operation requires; redirects followed by the client itself, within the API's origin only;
    /// a GET, HEAD, PUT or DELETE answered 429 or 503 with a Retry-After that ends within the call's time sent again.
    /// </summary>
    public static IHttpClientBuilder ConfigureApiClient(this IHttpClientBuilder http, McpSettings settings)
    {
        http.ConfigurePrimaryHttpMessageHandler(() => new SocketsHttpHandler
        {
            // Redirects are followed by the client itself, within the API's origin only: credentials go nowhere else.
            AllowAutoRedirect = false,
            // No cookie jar: a cookie an API sets lasts one call and never reaches another caller.
            UseCookies = false,
            // gzip, deflate and brotli asked for and undone; byte caps count the bytes after decompression.
            AutomaticDecompression = DecompressionMethods.All,
        });
        http.ConfigureHttpClient(client =>
        {
            client.BaseAddress = settings.BaseAddress;
            client.Timeout = settings.Timeout;
            client.DefaultRequestHeaders.TryAddWithoutValidation("User-Agent", settings.UserAgent);
            foreach (var (name, value) in settings.Headers)
            {
                // A header from the settings replaces the default of that name (User-Agent).
                client.DefaultRequestHeaders.Remove(name);
                client.DefaultRequestHeaders.TryAddWithoutValidation(name, value);
            }
        });__CREDENTIALS__
        // Sent again after the wait Retry-After asks, twice at most; POST and PATCH never are (they may have done their work).
        http.AddResilienceHandler("retry-after", pipeline =>
        {
            var retry = new HttpRetryStrategyOptions
            {
                MaxRetryAttempts = 2,
                ShouldRetryAfterHeader = true,
                ShouldHandle = arguments => ValueTask.FromResult(ApiRequest.RetryWait(arguments.Outcome.Result) is not null),
            };
            retry.DisableFor(HttpMethod.Post, HttpMethod.Patch, HttpMethod.Connect);
            pipeline.AddRetry(retry);
        });
        return http;
    }

    /// <summary>Work the server does once the host has started (interpreters made ready, a model loaded).</summary>
    public static IServiceCollection AddMcpStartup(this IServiceCollection services, Action<IServiceProvider> start) =>
        services.AddSingleton<IHostedService>(provider => new Startup(() => start(provider)));

    private sealed class Startup(Action start) : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken)
        {
            start();
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
