#nullable enable

using System;
using System.Buffers;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;

namespace __NAMESPACE__;

/// <summary>
/// The operation index the generator wrote (<c>McpSearchIndex.g.json</c>, embedded in the assembly) and the
/// search over it: each query word's term looked up, its precomputed BM25F weights summed per operation, scaled
/// by the operation's prior, by how well its kind fits the query's verbs, by whether the query names what it acts on
/// and by how much of its tool name the query says, best first. Queries are read by the same rules as the index
/// (McpSearchQuery.cs). Terms are numbered once, so that scoring an operation compares numbers.
/// </summary>
internal sealed partial class McpSearch
{
    /// <summary>One operation as search results and descriptions name it.</summary>
    public sealed record Operation(string Name, string Title, string Method, string Path, string[] Tags, string Summary, string Member);

    /// <summary>
    /// What scores an operation beside its term weights: prior, kinds, what it acts on, its tool name's words with their
    /// synonyms, what holds what it acts on, and whether it makes a thing (its kind is create and its last piece names a
    /// thing, not its own verb as RPC's CreateBucketAccessKey does).
    /// </summary>
    private sealed record Signals(int Prior, int[] Kinds, int[] Resource, int[][] NameWords, int[] Parent, bool Makes);

    private static readonly Lazy<McpSearch> Loaded = new(Load);

    /// <summary>The index, read from the assembly the first time it is needed.</summary>
    public static McpSearch Index => Loaded.Value;

    private readonly Operation[] operations;
    private readonly Signals[] signals;
    private readonly Dictionary<string, int> termIds;
    private readonly Dictionary<string, int> byName;
    private readonly Dictionary<string, int[]> postings;

    private McpSearch(Operation[] operations, Signals[] signals, Dictionary<string, int> termIds, Dictionary<string, int[]> postings)
    {
        this.operations = operations;
        this.signals = signals;
        this.termIds = termIds;
        this.postings = postings;
        byName = new Dictionary<string, int>(operations.Length, StringComparer.Ordinal);
        for (var i = 0; i < operations.Length; i++)
        {
            byName[operations[i].Name] = i;
        }
    }

    /// <summary>The operations best matching <paramref name="query"/>, at most <paramref name="limit"/>, only those tagged <paramref name="tag"/> when given.</summary>
    public IReadOnlyList<Operation> Search(string query, string? tag, int limit)
    {
        var (terms, intents, possessors, ones, free) = ReadQuery(query);
        var distinct = terms.ToHashSet(StringComparer.Ordinal);
        var termSet = Ids(distinct);
        var intentSet = Ids(intents);
        var possessorSet = Ids(possessors);
        var oneSet = Ids(ones);
        var freeSet = Ids(free);
        // Term at a time into one array of sums, remembering which operations were reached: each once, as a posting's
        // weight is at least 1 (the generator writes it so), so a reached operation's sum is never 0 again. The arrays
        // are rented (on all of Graph they are up to 180 KB a search, which allocated anew would go to the large object
        // heap, whose collections hold up a request now and then).
        var sums = ArrayPool<double>.Shared.Rent(operations.Length);
        var reached = ArrayPool<int>.Shared.Rent(operations.Length);
        var scored = ArrayPool<(int Doc, double Score)>.Shared.Rent(operations.Length);
        Array.Clear(sums, 0, operations.Length);
        try
        {
            var reachedCount = 0;
            foreach (var term in distinct)
            {
                if (!postings.TryGetValue(term, out var list)) continue;
                for (var i = 0; i + 1 < list.Length; i += 2)
                {
                    var doc = list[i];
                    if (sums[doc] == 0) reached[reachedCount++] = doc;
                    sums[doc] += list[i + 1];
                }
            }
            var count = 0;
            foreach (var doc in reached.AsSpan(0, reachedCount))
            {
                if (tag is not null && !HasTag(operations[doc], tag)) continue;
                scored[count++] = (doc, Score(sums[doc], signals[doc], termSet, intentSet, possessorSet, oneSet, freeSet));
            }
            // The name raises a score at most 1 + NameCoverage times: an operation below the limit-th best by that much
            // cannot be among the results, and its name need not be looked at (Graph: most of 11,422).
            var bar = KthLargest(scored.AsSpan(0, count), limit);
            var finalists = new List<(int Doc, double Score)>();
            foreach (var (doc, score) in scored.AsSpan(0, count))
            {
                if (score * (1 + NameCoverage) >= bar) finalists.Add((doc, score * (1 + NameCoverage * NameShare(signals[doc], termSet))));
            }
            finalists.Sort((a, b) => b.Score != a.Score ? b.Score.CompareTo(a.Score) : a.Doc.CompareTo(b.Doc));
            return finalists.Take(limit).Select(f => operations[f.Doc]).ToList();
        }
        finally
        {
            ArrayPool<double>.Shared.Return(sums);
            ArrayPool<int>.Shared.Return(reached);
            ArrayPool<(int Doc, double Score)>.Shared.Return(scored);
        }
    }

    /// <summary>The numbers of the terms the index knows; the others can match nothing.</summary>
    private HashSet<int> Ids(IEnumerable<string> terms)
    {
        var ids = new HashSet<int>();
        foreach (var term in terms)
        {
            if (termIds.TryGetValue(term, out var id)) ids.Add(id);
        }
        return ids;
    }

    /// <summary>Whether the operation has the tag (any case).</summary>
    internal static bool HasTag(Operation operation, string tag)
    {
        foreach (var t in operation.Tags)
        {
            if (string.Equals(t, tag, StringComparison.OrdinalIgnoreCase)) return true;
        }
        return false;
    }

    /// <summary>
    /// An operation's summed term weights times its prior, times <see cref="IntentBoost"/> when its kind is one the
    /// query asks for, times <see cref="ResourceMiss"/> when the query names nothing of what it acts on (a possessor
    /// does not name it), or <see cref="ResourceHeld"/> when it names, in the singular, only what holds it (the path's
    /// segment before the last: "put a reaction on issue 12" for /issues/{index}/reactions) or when it makes what the
    /// query names only after a preposition (POST /issues for "add a label to issue 12"). The search then multiplies it by 1 + <see cref="NameCoverage"/> × <see cref="NameShare"/>.
    /// </summary>
    private static double Score(double sum, Signals operation, HashSet<int> terms, HashSet<int> intents, HashSet<int> possessors, HashSet<int> ones, HashSet<int> free)
    {
        var named = operation.Resource.Length == 0;
        foreach (var t in operation.Resource)
        {
            if (terms.Contains(t) && !possessors.Contains(t)) named = true;
        }
        var held = false;
        if (!named)
        {
            foreach (var t in operation.Parent)
            {
                if (ones.Contains(t)) held = true;
            }
        }
        var wanted = false;
        foreach (var k in operation.Kinds)
        {
            if (intents.Contains(k)) wanted = true;
        }
        // An operation that makes a thing the query names only as where something goes (no new issue for "add a label
        // to issue 12"); not one whose last piece says its own verb (RPC: CreateBucketAccessKey).
        var where = named && operation.Makes;
        foreach (var t in operation.Resource)
        {
            if (free.Contains(t) && !possessors.Contains(t)) where = false;
        }
        return sum * operation.Prior * (wanted ? IntentBoost : 1) * (named && !where ? 1 : held || where ? ResourceHeld : ResourceMiss);
    }

    /// <summary>The share of an operation's tool name words the query says, itself or by a synonym.</summary>
    private static double NameShare(Signals operation, HashSet<int> terms)
    {
        if (operation.NameWords.Length == 0) return 0;
        var said = 0;
        foreach (var forms in operation.NameWords)
        {
            foreach (var t in forms)
            {
                if (!terms.Contains(t)) continue;
                said++;
                break;
            }
        }
        return (double)said / operation.NameWords.Length;
    }

    /// <summary>The k-th largest score; negative infinity when there are no more than k.</summary>
    private static double KthLargest(ReadOnlySpan<(int Doc, double Score)> scored, int k)
    {
        if (scored.Length <= k || k <= 0) return double.NegativeInfinity;
        var top = new List<double>(k + 1);
        foreach (var (_, score) in scored)
        {
            if (top.Count == k && score <= top[k - 1]) continue;
            var at = top.Count;
            while (at > 0 && top[at - 1] < score) at--;
            top.Insert(at, score);
            if (top.Count > k) top.RemoveAt(k);
        }
        return top[k - 1];
    }

    /// <summary>Every operation, in index order (the order of the hybrid search's vectors).</summary>
    public IReadOnlyList<Operation> Operations => operations;

    /// <summary>An operation's place in <see cref="Operations"/>.</summary>
    public int PositionOf(Operation operation) => byName[operation.Name];

    /// <summary>The operation with this tool name, if there is one.</summary>
    public Operation? Find(string name) => byName.TryGetValue(name, out var index) ? operations[index] : null;

    /// <summary>The answer to a name that is not an operation's: the nearest names, by edit distance.</summary>
    public string Unknown(string name)
    {
        var nearest = operations
            .Select(o => (o.Name, Distance: EditDistance(name, o.Name)))
            .OrderBy(o => o.Distance).ThenBy(o => o.Name, StringComparer.Ordinal)
            .Take(3)
            .Select(o => $"'{o.Name}'");
        return $"Error: no operation named '{name}'; did you mean {string.Join(", ", nearest)}? (search_operations finds operations by what they do)";
    }

    private static int EditDistance(string a, string b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (var j = 0; j <= b.Length; j++) previous[j] = j;
        for (var i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (var j = 1; j <= b.Length; j++)
            {
                var cost = char.ToLowerInvariant(a[i - 1]) == char.ToLowerInvariant(b[j - 1]) ? 0 : 1;
                current[j] = Math.Min(Math.Min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            (previous, current) = (current, previous);
        }
        return previous[b.Length];
    }

    private static McpSearch Load()
    {
        using var stream = typeof(McpSearch).Assembly.GetManifestResourceStream("McpSearchIndex.json")
            ?? throw new InvalidOperationException("The operation index McpSearchIndex.json is not embedded in the assembly.");
        using var document = JsonDocument.Parse(stream);
        var root = document.RootElement;
        var termIds = new Dictionary<string, int>(StringComparer.Ordinal);
        int[] Numbered(JsonElement array) => array.EnumerateArray().Select(t => Number(termIds, t.GetString()!)).ToArray();
        var entries = root.GetProperty("operations").EnumerateArray().ToArray();
        var operations = entries.Select(o => new Operation(
            o[0].GetString()!, o[1].GetString()!, o[2].GetString()!, o[3].GetString()!,
            o[4].EnumerateArray().Select(t => t.GetString()!).ToArray(), o[5].GetString()!, o[6].GetString()!)).ToArray();
        var signals = entries.Select(o =>
        {
            var kinds = o[8].EnumerateArray().Select(t => t.GetString()!).ToArray();
            var resource = o[9].EnumerateArray().Select(t => t.GetString()!).ToArray();
            var makes = kinds.Contains("create") && resource.Length > 0 && !resource.Any(kinds.Contains);
            return new Signals(o[7].GetInt32(), Numbered(o[8]), Numbered(o[9]), o[10].EnumerateArray().Select(Numbered).ToArray(), Numbered(o[11]), makes);
        }).ToArray();
        var postings = new Dictionary<string, int[]>(StringComparer.Ordinal);
        foreach (var term in root.GetProperty("terms").EnumerateObject())
        {
            var list = new int[term.Value.GetArrayLength()];
            var i = 0;
            foreach (var number in term.Value.EnumerateArray()) list[i++] = number.GetInt32();
            postings[term.Name] = list;
            Number(termIds, term.Name);
        }
        return new McpSearch(operations, signals, termIds, postings);
    }

    private static int Number(Dictionary<string, int> ids, string term)
    {
        if (!ids.TryGetValue(term, out var id))
        {
            id = ids.Count;
            ids[term] = id;
        }
        return id;
    }

    private const double IntentBoost = __INTENT_BOOST__;

    private const double ResourceMiss = __RESOURCE_MISS__;

    private const double ResourceHeld = __RESOURCE_HELD__;

    private const double NameCoverage = __NAME_COVERAGE__;
}
