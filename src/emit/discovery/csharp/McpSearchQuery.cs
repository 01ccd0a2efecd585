#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;
using Lucene.Net.Tartarus.Snowball.Ext;

namespace __NAMESPACE__;

/// <summary>
/// How the search reads a request, by the rules the generator indexed the operations with: contractions expanded,
/// words split at camelCase, snake_case and digits, a phrasal verb read as the verb it means ("tear down"), the
/// word after a negation left out, stop words dropped, stemmed; the kinds of operation the request's verbs (not its
/// past participles) ask for, a question asking for a read or a list; "stop" before an -ing form read as remove; a
/// request that opens with "who" as its subject asking for people; its possessors ("an owner's pets"); and the words
/// it says in the singular.
/// </summary>
internal sealed partial class McpSearch
{
    private const string Many = "~many";

    /// <summary>The prefix of the term of the ones who do what a verb says (followers: ~who:follow).</summary>
    private const string Agent = "__AGENT__";

    /// <summary>The term of operations whose path ends in people, and of requests that ask who.</summary>
    private const string Person = "__PERSON__";

    /// <summary>Query terms that ask for a kind of operation; an operation of that kind scores <see cref="IntentBoost"/> times as much.</summary>
    private static readonly Dictionary<string, string[]> Intents = new(StringComparer.Ordinal)
    {
        __INTENTS__
    };

    private static readonly HashSet<string> StopWords = new(StringComparer.Ordinal)
    {
        __STOP_WORDS__
    };

    /// <summary>A verb's term and its particle (up to three words later) → the verb they mean together.</summary>
    private static readonly Dictionary<string, string> PhrasalVerbs = new(StringComparer.Ordinal)
    {
        __PHRASAL_VERBS__
    };

    private static readonly HashSet<string> Particles = PhrasalVerbs.Keys.Select(k => k[(k.IndexOf(' ') + 1)..]).ToHashSet(StringComparer.Ordinal);

    /// <summary>Words after which the next word is not wanted.</summary>
    private static readonly HashSet<string> Negations = new(StringComparer.Ordinal) { __NEGATIONS__ };

    /// <summary>Verbs that, after "who" and before a subject pronoun, make "who" the object ("who am I following").</summary>
    private static readonly HashSet<string> Auxiliaries = new(StringComparer.Ordinal) { __AUXILIARIES__ };

    /// <summary>Subject pronouns.</summary>
    private static readonly HashSet<string> Pronouns = new(StringComparer.Ordinal) { __PRONOUNS__ };

    /// <summary>Prepositions that say where something goes or is.</summary>
    private static readonly HashSet<string> Prepositions = new(StringComparer.Ordinal) { __PREPOSITIONS__ };

    /// <summary>Words after which "to" is a preposition and no infinitive.</summary>
    private static readonly HashSet<string> Determiners = new(StringComparer.Ordinal) { __DETERMINERS__ };

    /// <summary>Verbs that, before an -ing form, undo what it does ("stop following bob").</summary>
    private static readonly HashSet<string> Ceasing = new(StringComparer.Ordinal) { __CEASING__ };

    /// <summary>Words that, opening a request, make it a question.</summary>
    private static readonly HashSet<string> QuestionWords = new(StringComparer.Ordinal) { __QUESTION_WORDS__ };

    /// <summary>
    /// A request's terms (repeats kept, and the plural term), the kinds of operation it asks for, the terms of
    /// its possessors ("an owner's pets": owner), which qualify what is asked for rather than name it, and the terms
    /// of the words it says in the singular (one thing, which may hold what is asked for) and before any preposition
    /// (what it makes or acts on, not where).
    /// </summary>
    public static (List<string> Terms, HashSet<string> Intents, HashSet<string> Possessors, HashSet<string> Ones, HashSet<string> Free) ReadQuery(string query)
    {
        var text = query.Replace('\u2018', '\'').Replace('\u2019', '\'');
        var possessors = new HashSet<string>(StringComparer.Ordinal);
        foreach (Match match in Possessive().Matches(text))
        {
            var word = match.Groups[1].Value.ToLowerInvariant();
            if (!StopWords.Contains(word)) possessors.Add(Stem(word));
        }
        var list = AllWords(ExpandContractions(text)).Select(w => (Word: w, Past: IsPast(w), Held: false)).ToList();
        MarkHeld(list);
        JoinPhrasalVerbs(list);
        // "stop following bob": remove the following.
        for (var i = 0; i + 1 < list.Count; i++)
        {
            var next = list[i + 1].Word;
            if (Ceasing.Contains(list[i].Word) && next.Length > 5 && next.EndsWith("ing", StringComparison.Ordinal)) list[i] = ("remove", false, list[i].Held);
        }
        var kept = new List<(string Word, bool Past, bool Held)>();
        var negated = false;
        foreach (var entry in list)
        {
            if (Negations.Contains(entry.Word)) negated = true;
            else if (StopWords.Contains(entry.Word)) continue;
            else if (negated) negated = false;
            else kept.Add(entry);
        }
        var terms = kept.Select(k => Stem(k.Word)).ToList();
        if (kept.Any(k => IsPlural(k.Word))) terms.Add(Many);
        // "who follows octocat": the ones who follow (followers), not whom octocat follows.
        if (list.Count > 1 && list[0].Word == "who" && !StopWords.Contains(list[1].Word) && (IsPlural(list[1].Word) || IsPast(list[1].Word))) terms.Add(Agent + Stem(list[1].Word));
        // "who acted in it", "who's on the team": people, whatever the verb.
        if (list.Count > 0 && list[0].Word == "who" && !(list.Count > 2 && Auxiliaries.Contains(list[1].Word) && Pronouns.Contains(list[2].Word))) terms.Add(Person);
        // A noun made of a verb (attachments, payment) names a thing, whatever its stem shares with the verb (attach).
        var verbs = kept.Where(k => !k.Past && !k.Word.EndsWith("ment", StringComparison.Ordinal) && !k.Word.EndsWith("ments", StringComparison.Ordinal)).Select(k => Stem(k.Word)).ToList();
        var intents = verbs.ToHashSet(StringComparer.Ordinal);
        foreach (var (kind, asking) in Intents)
        {
            if (asking.Any(verbs.Contains)) intents.Add(kind);
        }
        if (list.Count > 0 && QuestionWords.Contains(list[0].Word))
        {
            intents.Add("read");
            intents.Add("list");
        }
        // Reading things (get the attachments) is listing them.
        if (intents.Contains("read") && terms.Contains(Many)) intents.Add("list");
        var ones = kept.Where(k => !IsPlural(k.Word)).Select(k => Stem(k.Word)).ToHashSet(StringComparer.Ordinal);
        var free = kept.Where(k => !k.Held).Select(k => Stem(k.Word)).ToHashSet(StringComparer.Ordinal);
        return (terms, intents, possessors, ones, free);
    }

    /// <summary>Marks every word after a preposition (or "to" before a determiner or a number) as held: it says where, not what.</summary>
    private static void MarkHeld(List<(string Word, bool Past, bool Held)> list)
    {
        for (var i = 0; i < list.Count; i++)
        {
            var next = i + 1 < list.Count ? list[i + 1].Word : "";
            if (!Prepositions.Contains(list[i].Word) && !(list[i].Word == "to" && (Determiners.Contains(next) || (next.Length > 0 && next[0] >= '0' && next[0] <= '9')))) continue;
            for (var j = i + 1; j < list.Count; j++) list[j] = (list[j].Word, list[j].Past, true);
            return;
        }
    }

    private static void JoinPhrasalVerbs(List<(string Word, bool Past, bool Held)> list)
    {
        for (var i = 0; i < list.Count; i++)
        {
            for (var j = i + 1; j < Math.Min(list.Count, i + 4); j++)
            {
                if (!Particles.Contains(list[j].Word)) continue;
                if (PhrasalVerbs.TryGetValue($"{Stem(list[i].Word)} {list[j].Word}", out var verb))
                {
                    list[i] = (verb, list[i].Past, list[i].Held);
                    list.RemoveAt(j);
                }
                break;
            }
        }
    }

    [GeneratedRegex(@"([\p{L}\p{N}]+)'s\b", RegexOptions.IgnoreCase)]
    private static partial Regex Possessive();

    [GeneratedRegex(@"\b(can|won)'t\b", RegexOptions.IgnoreCase)]
    private static partial Regex NegatedModal();

    [GeneratedRegex(@"n't\b", RegexOptions.IgnoreCase)]
    private static partial Regex NegatedVerb();

    [GeneratedRegex(@"'(s|re|ve|ll|d|m)\b", RegexOptions.IgnoreCase)]
    private static partial Regex Contraction();

    /// <summary><c>don't</c> → do not, <c>what's</c> → what, <c>an owner's</c> → an owner, <c>can't</c> → can not.</summary>
    public static string ExpandContractions(string query)
    {
        var text = query.Replace('\u2018', '\'').Replace('\u2019', '\'');
        text = NegatedModal().Replace(text, m => string.Equals(m.Groups[1].Value, "can", StringComparison.OrdinalIgnoreCase) ? "can not" : "will not");
        text = NegatedVerb().Replace(text, " not");
        return Contraction().Replace(text, "");
    }

    [GeneratedRegex(@"[^\p{L}\p{N}]+")]
    private static partial Regex Separator();

    [GeneratedRegex(@"(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})")]
    private static partial Regex CaseBoundary();

    /// <summary>The words of a text, lower-cased, stop words kept; a sub- word is followed by its part and by child.</summary>
    private static List<string> AllWords(string text)
    {
        var words = new List<string>();
        foreach (var token in Separator().Split(text))
        {
            foreach (var part in CaseBoundary().Split(token))
            {
                var word = part.ToLowerInvariant();
                if (word.Length == 0) continue;
                words.Add(word);
                if (word.Length >= 7 && word.StartsWith("sub", StringComparison.Ordinal))
                {
                    words.Add(word[3..]);
                    words.Add("child");
                }
            }
        }
        return words;
    }

    private static bool IsPast(string word) => word.Length >= 5 && word.EndsWith("ed", StringComparison.Ordinal) && !word.EndsWith("eed", StringComparison.Ordinal);

    private static bool IsPlural(string word) => word.Length > 3 && word.EndsWith('s') && !word.EndsWith("ss", StringComparison.Ordinal) && !word.EndsWith("us", StringComparison.Ordinal) && !word.EndsWith("is", StringComparison.Ordinal);

    /// <summary>The stemmer of this thread: a Snowball stemmer holds the word it works on.</summary>
    [ThreadStatic]
    private static EnglishStemmer? stemmer;

    /// <summary>
    /// A word's term: its Porter2 (Snowball English) stem, as the generator's index has it: create, creates, created,
    /// creating, creation → creat; remind, reminders → remind.
    /// </summary>
    public static string Stem(string word)
    {
        // Porter2 is an English algorithm of the letters a to z: numbers and other scripts stay as they are.
        if (word.Length == 0 || word.AsSpan().ContainsAnyExceptInRange('a', 'z')) return word;
        var english = stemmer ??= new EnglishStemmer();
        english.SetCurrent(word);
        english.Stem();
        return english.Current;
    }
}
