#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Globalization;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.RateLimiting;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using RedisRateLimiting;
using StackExchange.Redis;
using __CLIENT_NAMESPACE__;

namespace __NAMESPACE__;

/// <summary>
/// What the replicas of a deployment share, on Redis (the REDIS setting, a StackExchange.Redis connection string):
/// <list type="bullet">
/// <item>each caller's rate limit: one token bucket per caller for all the replicas (RedisRateLimiting's);</item>
/// <item>each caller's share of code mode's scripts: a concurrency limit per caller for all the replicas (RedisRateLimiting's);</item>
/// <item>the tokens obtained for the API (OAuth2 client credentials, token exchange), sealed with a key made from the
/// secret that obtained each, so that Redis never holds a token in the clear;</item>
/// <item>the key that signs long-running operations' tokens, unless OPERATION_KEY sets one.</item>
/// </list>
/// While Redis cannot be reached, every call is still answered: each replica uses its own buckets, share, token cache
/// and key, as a server without the setting does. The log says so once an outage (a warning) and again when Redis is
/// back; the metric <c>mcp.shared_state.fallbacks</c> counts each use of a replica's own state, by what it was used for.
/// </summary>
internal sealed class McpSharedState : IApiTokenStore
{
    private static readonly Meter Meter = new(McpTelemetry.MeterName);

    private static readonly Counter<long> Fallbacks = Meter.CreateCounter<long>("mcp.shared_state.fallbacks", "{use}",
        "Uses of this replica's own state because Redis could not be reached, by use (rate_limit, script_share, token, operation_key).");

    private readonly ConfigurationOptions _options;
    private readonly string _setting;
    private readonly bool _sharesOperationKey;
    private ConnectionMultiplexer? _connection;
    private ILogger _logger = NullLogger.Instance;
    private PartitionedRateLimiter<string>? _scripts;
    private int _down;

    private McpSharedState(ConfigurationOptions options, string setting, string prefix, bool sharesOperationKey)
    {
        _options = options;
        _setting = setting;
        _sharesOperationKey = sharesOperationKey;
        Prefix = prefix;
    }

    /// <summary>What this server's keys in Redis start with (its name), so that several servers can share one Redis.</summary>
    public string Prefix { get; }

    /// <summary>Whether Redis answers now.</summary>
    public bool Available => _connection is { IsConnected: true };

    private IConnectionMultiplexer Connection => _connection ?? throw new InvalidOperationException("The shared state has not started.");

    /// <summary>
    /// The shared state the setting names: none when it is empty; false and one line when it is not a connection string.
    /// <paramref name="sharesOperationKey"/>: the replicas take one key for long-running operations' tokens from Redis.
    /// </summary>
    public static bool TryParse(string? text, string setting, string prefix, bool sharesOperationKey, out McpSharedState? state, out string? error)
    {
        state = null;
        error = null;
        if (string.IsNullOrWhiteSpace(text))
        {
            return true;
        }
        ConfigurationOptions options;
        try
        {
            options = ConfigurationOptions.Parse(text.Trim());
        }
        catch (ArgumentException exception)
        {
            error = $"error: {setting} is not a Redis connection string ({exception.Message}): give host:port, and options after commas (password=…, ssl=true)";
            return false;
        }
        if (options.EndPoints.Count == 0)
        {
            error = $"error: {setting} names no Redis server: give host:port, and options after commas (password=…, ssl=true)";
            return false;
        }
        ApiSecrets.Add(options.Password);
        // Start, and keep trying, while Redis is away; while it is, a command fails at once (this replica's own state
        // answers) rather than waiting for it. Unless the setting says otherwise, a command waits at most a second.
        options.AbortOnConnectFail = false;
        options.BacklogPolicy = BacklogPolicy.FailFast;
        if (!Mentions(text, "connectTimeout")) options.ConnectTimeout = 2000;
        if (!Mentions(text, "asyncTimeout")) options.AsyncTimeout = 1000;
        options.ClientName ??= prefix;
        state = new McpSharedState(options, setting, prefix, sharesOperationKey);
        return true;
    }

    private static bool Mentions(string text, string option) => text.Contains(option + "=", StringComparison.OrdinalIgnoreCase);

    /// <summary>Connects (waiting at most the connect timeout; Redis away, it goes on trying), and takes the replicas' operation key.</summary>
    public async Task StartAsync(ILogger logger)
    {
        _logger = logger;
        _connection = await ConnectionMultiplexer.ConnectAsync(_options).ConfigureAwait(false);
        _connection.ConnectionFailed += (_, failed) => Lost(failed.FailureType.ToString());
        _connection.ConnectionRestored += (_, _) => _ = RestoredAsync();
        if (!_connection.IsConnected)
        {
            Lost("unreachable");
            return;
        }
        _logger.LogInformation("Shared state on Redis ({Setting}): rate limits, script shares, tokens and the operation key are the deployment's", _setting);
        await ShareOperationKeyAsync().ConfigureAwait(false);
    }

    /// <summary>Closes the connection, once the requests in flight are done.</summary>
    public async Task StopAsync()
    {
        if (_connection is { } connection)
        {
            await connection.CloseAsync().ConfigureAwait(false);
        }
    }

    /// <summary>This replica's own state answered for <paramref name="use"/>: counted, and said once an outage.</summary>
    public void Fallback(string use, Exception? error = null)
    {
        Fallbacks.Add(1, new KeyValuePair<string, object?>("use", use));
        Lost(error?.GetType().Name ?? "unreachable");
    }

    /// <summary>
    /// A failure of Redis, whatever its kind (unreachable, timed out, refused, a connection cut in the middle of a
    /// command): anything but a cancellation, which is the caller's. Shared state never fails a call.
    /// </summary>
    public static bool IsFailure(Exception exception) => exception is not OperationCanceledException;

    private void Lost(string why)
    {
        if (Interlocked.Exchange(ref _down, 1) == 0)
        {
            _logger.LogWarning("Shared state: Redis ({Setting}) cannot be reached ({Why}); until it answers, each replica keeps its own rate limits, script shares, tokens and operation key", _setting, why);
        }
    }

    private async Task RestoredAsync()
    {
        if (!Available || Interlocked.Exchange(ref _down, 0) == 0)
        {
            return;
        }
        _logger.LogInformation("Shared state: Redis ({Setting}) answers again; rate limits, script shares and tokens are the deployment's again", _setting);
        await ShareOperationKeyAsync().ConfigureAwait(false);
    }

    /// <summary>
    /// The replicas' key for long-running operations' tokens: the first replica to reach Redis stores its own, the
    /// others take it; tokens this replica signed before are still accepted here.
    /// </summary>
    private async Task ShareOperationKeyAsync()
    {
        if (!_sharesOperationKey)
        {
            return;
        }
        try
        {
            var database = Connection.GetDatabase();
            var name = new RedisKey($"{Prefix}:operation-key");
            var keys = ApiRequest.OperationKeys;
            await database.StringSetAsync(name, keys[0], when: When.NotExists).ConfigureAwait(false);
            if ((byte[]?)await database.StringGetAsync(name).ConfigureAwait(false) is { Length: >= 32 and <= 1024 } shared && !shared.AsSpan().SequenceEqual(keys[0]))
            {
                ApiRequest.OperationKeys = [shared, .. keys.Take(3)];
            }
        }
        catch (Exception exception) when (IsFailure(exception))
        {
            Fallback("operation_key", exception);
        }
    }

    /// <summary>
    /// The rate limit across the deployment: each caller's token bucket on Redis (<paramref name="burst"/> tokens,
    /// refilled one at a time at <paramref name="perMinute"/> a minute), for the requests <paramref name="caller"/> names
    /// a caller of; while Redis cannot be reached, <paramref name="local"/>, this replica's own buckets.
    /// </summary>
    public PartitionedRateLimiter<HttpContext> RateLimiter(PartitionedRateLimiter<HttpContext> local, Func<HttpContext, string?> caller, int burst, double perMinute)
    {
        var bucket = new RedisTokenBucketRateLimiterOptions
        {
            TokenLimit = burst,
            TokensPerPeriod = 1,
            ReplenishmentPeriod = TimeSpan.FromMinutes(1) / perMinute,
            ConnectionMultiplexerFactory = () => Connection,
        };
        var shared = PartitionedRateLimiter.Create<HttpContext, string>(context => caller(context) is { } key
            ? RedisRateLimitPartition.GetTokenBucketRateLimiter($"{Prefix}:rate:{key}", _ => bucket)
            : RateLimitPartition.GetNoLimiter(""));
        return new FallbackRateLimiter(this, shared, local);
    }

    /// <summary>Redis's buckets while it answers, this replica's own while it does not.</summary>
    private sealed class FallbackRateLimiter(McpSharedState state, PartitionedRateLimiter<HttpContext> shared, PartitionedRateLimiter<HttpContext> local) : PartitionedRateLimiter<HttpContext>
    {
        public override RateLimiterStatistics? GetStatistics(HttpContext resource) => local.GetStatistics(resource);

        // Redis's bucket takes a token only when waited for: its try fails, and the middleware then waits (below).
        protected override RateLimitLease AttemptAcquireCore(HttpContext resource, int permitCount)
        {
            if (state.Available)
            {
                return shared.AttemptAcquire(resource, permitCount);
            }
            var lease = local.AttemptAcquire(resource, permitCount);
            state.Fallback("rate_limit");
            return lease;
        }

        protected override async ValueTask<RateLimitLease> AcquireAsyncCore(HttpContext resource, int permitCount, CancellationToken cancellationToken)
        {
            if (state.Available)
            {
                try
                {
                    return await shared.AcquireAsync(resource, permitCount, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception exception) when (IsFailure(exception))
                {
                    state.Fallback("rate_limit", exception);
                }
            }
            return await local.AcquireAsync(resource, permitCount, cancellationToken).ConfigureAwait(false);
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                shared.Dispose();
                local.Dispose();
            }
            base.Dispose(disposing);
        }
    }

    /// <summary>
    /// A place for one script in its caller's share across the deployment: at most <paramref name="share"/> of a caller's
    /// scripts run at once on all the replicas together, and <paramref name="waiting"/> more wait, each for at most
    /// <paramref name="wait"/>. The lease (disposed when the script ends), or null when the share stayed taken. While
    /// Redis cannot be reached, an empty lease: this replica's own share holds.
    /// </summary>
    public async Task<IDisposable?> EnterScriptShareAsync(string caller, int share, int waiting, TimeSpan wait, CancellationToken cancellationToken)
    {
        if (!Available)
        {
            Fallback("script_share");
            return NoLease.Instance;
        }
        var scripts = LazyInitializer.EnsureInitialized(ref _scripts, () => PartitionedRateLimiter.Create<string, string>(key =>
            RedisRateLimitPartition.GetConcurrencyRateLimiter(key, _ => new RedisConcurrencyRateLimiterOptions
            {
                PermitLimit = share,
                QueueLimit = waiting,
                TryDequeuePeriod = TimeSpan.FromMilliseconds(100),
                ConnectionMultiplexerFactory = () => Connection,
            })));
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(wait);
        try
        {
            var lease = await scripts.AcquireAsync($"{Prefix}:scripts:{caller}", 1, timeout.Token).ConfigureAwait(false);
            if (lease.IsAcquired)
            {
                return lease;
            }
            lease.Dispose();
            return null;
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return null;
        }
        catch (Exception exception) when (IsFailure(exception))
        {
            Fallback("script_share", exception);
            return NoLease.Instance;
        }
    }

    private sealed class NoLease : IDisposable
    {
        public static readonly NoLease Instance = new();

        public void Dispose()
        {
        }
    }

    /// <inheritdoc/>
    public async Task<(string Token, DateTimeOffset Expires)?> GetAsync(string name, string secret, CancellationToken cancellationToken)
    {
        if (!Available)
        {
            Fallback("token");
            return null;
        }
        var (key, redisKey) = TokenKeys(name, secret);
        try
        {
            // A sealed token is a few kilobytes at most: anything larger is not one this server stored.
            return (byte[]?)await Connection.GetDatabase().StringGetAsync(redisKey).ConfigureAwait(false) is { Length: <= MaxSealedBytes } box ? Open(key, box) : null;
        }
        catch (Exception exception) when (IsFailure(exception))
        {
            Fallback("token", exception);
            return null;
        }
    }

    /// <inheritdoc/>
    public async Task SetAsync(string name, string secret, (string Token, DateTimeOffset Expires) token, CancellationToken cancellationToken)
    {
        var life = token.Expires - DateTimeOffset.UtcNow;
        if (life <= TimeSpan.Zero)
        {
            return;
        }
        if (!Available)
        {
            Fallback("token");
            return;
        }
        var (key, redisKey) = TokenKeys(name, secret);
        try
        {
            await Connection.GetDatabase().StringSetAsync(redisKey, Seal(key, token), life).ConfigureAwait(false);
        }
        catch (Exception exception) when (IsFailure(exception))
        {
            Fallback("token", exception);
        }
    }

    /// <summary>The key a token is sealed with (made from the secret that obtained it), and its name in Redis (made from that key and its name).</summary>
    private (byte[] Key, RedisKey Name) TokenKeys(string name, string secret)
    {
        var key = HKDF.DeriveKey(HashAlgorithmName.SHA256, Encoding.UTF8.GetBytes(secret), 32, info: Encoding.UTF8.GetBytes("mcp token store"));
        return (key, new RedisKey($"{Prefix}:token:{Convert.ToHexString(HMACSHA256.HashData(key, Encoding.UTF8.GetBytes(name)))}"));
    }

    private const int MaxSealedBytes = 64 * 1024;
    private const int NonceBytes = 12;
    private const int TagBytes = 16;

    /// <summary>The token and its expiry, encrypted and authenticated (AES-GCM): nonce, tag, then the text.</summary>
    private static byte[] Seal(byte[] key, (string Token, DateTimeOffset Expires) token)
    {
        var plain = JsonSerializer.SerializeToUtf8Bytes(new[] { token.Token, token.Expires.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture) });
        var box = new byte[NonceBytes + TagBytes + plain.Length];
        RandomNumberGenerator.Fill(box.AsSpan(0, NonceBytes));
        using var aes = new AesGcm(key, TagBytes);
        aes.Encrypt(box.AsSpan(0, NonceBytes), plain, box.AsSpan(NonceBytes + TagBytes), box.AsSpan(NonceBytes, TagBytes));
        return box;
    }

    /// <summary>What <see cref="Seal"/> sealed with this key; null for anything else.</summary>
    private static (string Token, DateTimeOffset Expires)? Open(byte[] key, byte[] box)
    {
        if (box.Length < NonceBytes + TagBytes)
        {
            return null;
        }
        var plain = new byte[box.Length - NonceBytes - TagBytes];
        try
        {
            using var aes = new AesGcm(key, TagBytes);
            aes.Decrypt(box.AsSpan(0, NonceBytes), box.AsSpan(NonceBytes + TagBytes), box.AsSpan(NonceBytes, TagBytes), plain);
        }
        catch (CryptographicException)
        {
            return null;
        }
        return JsonSerializer.Deserialize<string[]>(plain) is [var token, var expires] && long.TryParse(expires, NumberStyles.Integer, CultureInfo.InvariantCulture, out var milliseconds)
            ? (token, DateTimeOffset.FromUnixTimeMilliseconds(milliseconds))
            : null;
    }
}

/// <summary>Program.cs's call: the shared state connects when the server starts, and closes when it has stopped.</summary>
internal static class McpSharedStateSetup
{
    public static WebApplicationBuilder AddMcpSharedState(this WebApplicationBuilder builder, McpSettings settings)
    {
        if (settings.Shared is { } shared)
        {
            builder.Services.AddHostedService(services => new Lifetime(shared, services.GetRequiredService<ILoggerFactory>().CreateLogger("McpSharedState")));
        }
        return builder;
    }

    private sealed class Lifetime(McpSharedState shared, ILogger logger) : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken) => shared.StartAsync(logger);

        public Task StopAsync(CancellationToken cancellationToken) => shared.StopAsync();
    }
}
