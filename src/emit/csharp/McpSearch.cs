#nullable enable

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;

namespace __NAMESPACE__;

/// <summary>
/// The operation index the generator wrote (<c>McpSearchIndex.g.json</c>, embedded in the assembly) and the
/// search over it: each query word's term looked up, its precomputed BM25F weights summed per operation, scaled
/// by the operation's prior, by how well its kind fits the query's verbs, by whether the query names what it acts on
/// and by how much of its tool name the query says, best first. Query words are split and stemmed by the same rules as the index.
/// </summary>
internal sealed partial class McpSearch
{
    /// <summary>One operation as search results and descriptions name it.</summary>
    public sealed record Operation(string Name, string Title, string Method, string Path, string[] Tags, string Summary, string Member, int Prior, string[] Kinds, string[] Resource, string[][] NameWords);

    private static readonly Lazy<McpSearch> Loaded = new(Load);

    /// <summary>The index, read from the assembly the first time it is needed.</summary>
    public static McpSearch Index => Loaded.Value;

    private readonly Operation[] operations;
    private readonly Dictionary<string, int> byName;
    private readonly Dictionary<string, int[]> postings;

    private McpSearch(Operation[] operations, Dictionary<string, int[]> postings)
    {
        this.operations = operations;
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
        var sums = new Dictionary<int, double>();
        var terms = QueryTerms(query);
        var distinct = terms.ToHashSet(StringComparer.Ordinal);
        var intents = QueryIntents(terms);
        foreach (var term in distinct)
        {
            if (!postings.TryGetValue(term, out var list)) continue;
            for (var i = 0; i + 1 < list.Length; i += 2)
            {
                sums[list[i]] = sums.GetValueOrDefault(list[i]) + list[i + 1];
            }
        }
        var scored = sums
            .Where(s => tag is null || operations[s.Key].Tags.Any(t => string.Equals(t, tag, StringComparison.OrdinalIgnoreCase)))
            .Select(s => (Doc: s.Key, Score: Score(s.Value, operations[s.Key], distinct, intents)))
            .ToList();
        // The name raises a score at most 1 + NameCoverage times: an operation below the limit-th best by that much
        // cannot be among the results, and its name need not be looked at (Graph: most of 11,422).
        var bar = KthLargest(scored, limit);
        return scored
            .Where(s => s.Score * (1 + NameCoverage) >= bar)
            .Select(s => (s.Doc, Score: s.Score * (1 + NameCoverage * NameShare(operations[s.Doc], distinct))))
            .OrderByDescending(s => s.Score).ThenBy(s => s.Doc)
            .Take(limit)
            .Select(s => operations[s.Doc])
            .ToList();
    }

    /// <summary>
    /// An operation's summed term weights times its prior, times <see cref="IntentBoost"/> when its kind is one the
    /// query asks for, times <see cref="ResourceMiss"/> when the query names nothing of what it acts on. The search
    /// then multiplies it by 1 + <see cref="NameCoverage"/> × <see cref="NameShare"/>.
    /// </summary>
    private static double Score(double sum, Operation operation, HashSet<string> terms, HashSet<string> intents)
    {
        var named = operation.Resource.Length == 0 || operation.Resource.Any(terms.Contains);
        return sum * operation.Prior * (operation.Kinds.Any(intents.Contains) ? IntentBoost : 1) * (named ? 1 : ResourceMiss);
    }

    /// <summary>The share of an operation's tool name words the query says, itself or by a synonym.</summary>
    private static double NameShare(Operation operation, HashSet<string> terms) =>
        operation.NameWords.Length == 0 ? 0 : (double)operation.NameWords.Count(forms => forms.Any(terms.Contains)) / operation.NameWords.Length;

    /// <summary>The k-th largest score; negative infinity when there are no more than k.</summary>
    private static double KthLargest(List<(int Doc, double Score)> scored, int k)
    {
        if (scored.Count <= k || k <= 0) return double.NegativeInfinity;
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
        var operations = root.GetProperty("operations").EnumerateArray().Select(o => new Operation(
            o[0].GetString()!, o[1].GetString()!, o[2].GetString()!, o[3].GetString()!,
            Strings(o[4]), o[5].GetString()!, o[6].GetString()!, o[7].GetInt32(), Strings(o[8]), Strings(o[9]),
            o[10].EnumerateArray().Select(Strings).ToArray())).ToArray();
        var postings = new Dictionary<string, int[]>(StringComparer.Ordinal);
        foreach (var term in root.GetProperty("terms").EnumerateObject())
        {
            var list = new int[term.Value.GetArrayLength()];
            var i = 0;
            foreach (var number in term.Value.EnumerateArray()) list[i++] = number.GetInt32();
            postings[term.Name] = list;
        }
        return new McpSearch(operations, postings);
    }

    private static string[] Strings(JsonElement array) => array.EnumerateArray().Select(t => t.GetString()!).ToArray();

    // The query side of the generator's search-text rules: the same splitting, stop words, stemmer and plural term.

    private const string Many = "~many";

    /// <summary>Query terms that ask for a kind of operation; an operation of that kind scores <see cref="IntentBoost"/> times as much.</summary>
    private static readonly Dictionary<string, string[]> Intents = new(StringComparer.Ordinal)
    {
        __INTENTS__
    };

    private const double IntentBoost = __INTENT_BOOST__;

    private const double ResourceMiss = __RESOURCE_MISS__;

    private const double NameCoverage = __NAME_COVERAGE__;

    /// <summary>The kinds a query's terms ask for, and the terms themselves (a summary's own verb).</summary>
    public static HashSet<string> QueryIntents(List<string> terms)
    {
        var wanted = terms.ToHashSet(StringComparer.Ordinal);
        foreach (var intent in Intents)
        {
            if (intent.Value.Any(terms.Contains)) wanted.Add(intent.Key);
        }
        // Reading things (get the attachments) is listing them.
        if (wanted.Contains("read") && terms.Contains(Many)) wanted.Add("list");
        return wanted;
    }

    private static readonly HashSet<string> StopWords = new(StringComparer.Ordinal)
    {
        __STOP_WORDS__
    };

    [GeneratedRegex(@"[^\p{L}\p{N}]+")]
    private static partial Regex Separator();

    [GeneratedRegex(@"(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})")]
    private static partial Regex CaseBoundary();

    /// <summary>A query's terms: its words stemmed, and the plural term when one of them is a plural.</summary>
    public static List<string> QueryTerms(string query)
    {
        var words = new List<string>();
        foreach (var token in Separator().Split(query))
        {
            foreach (var part in CaseBoundary().Split(token))
            {
                var word = part.ToLowerInvariant();
                if (word.Length > 0 && !StopWords.Contains(word)) words.Add(word);
                // subaccount, subfolders: also the word they are a part of.
                if (word.Length >= 7 && word.StartsWith("sub", StringComparison.Ordinal)) words.Add(word[3..]);
            }
        }
        var terms = words.Select(Stem).ToList();
        if (words.Any(w => w.Length > 3 && w.EndsWith('s') && !w.EndsWith("ss", StringComparison.Ordinal) && !w.EndsWith("us", StringComparison.Ordinal) && !w.EndsWith("is", StringComparison.Ordinal)))
        {
            terms.Add(Many);
        }
        return terms;
    }

    /// <summary>Plurals folded, -ing and -ed removed, -tion to -t, a final e dropped: create, creates, created, creating, creation → creat.</summary>
    public static string Stem(string word)
    {
        var w = word;
        if (w.Length <= 3) return w;
        if (w.EndsWith("ies", StringComparison.Ordinal) && w.Length > 4) w = w[..^3] + "y";
        else if (w.EndsWith("sses", StringComparison.Ordinal)) w = w[..^2];
        else if (w.EndsWith("es", StringComparison.Ordinal)) w = w[..^2];
        else if (w.EndsWith('s') && !w.EndsWith("ss", StringComparison.Ordinal) && !w.EndsWith("us", StringComparison.Ordinal) && !w.EndsWith("is", StringComparison.Ordinal)) w = w[..^1];
        if (w.Length >= 7 && w.EndsWith("tion", StringComparison.Ordinal)) w = w[..^3];
        else if (w.Length >= 6 && w.EndsWith("ing", StringComparison.Ordinal) && HasVowel(w[..^3])) w = Undouble(w[..^3]);
        else if (w.Length >= 5 && w.EndsWith("ed", StringComparison.Ordinal) && !w.EndsWith("eed", StringComparison.Ordinal) && HasVowel(w[..^2])) w = Undouble(w[..^2]);
        if (w.Length >= 4 && w.EndsWith('e')) w = w[..^1];
        return w;
    }

    private static bool HasVowel(string text) => text.AsSpan().IndexOfAny("aeiouy") >= 0;

    private static string Undouble(string w) => w.Length >= 4 && w[^1] == w[^2] && "bcdfgkmnprt".Contains(w[^1]) ? w[..^1] : w;
}
