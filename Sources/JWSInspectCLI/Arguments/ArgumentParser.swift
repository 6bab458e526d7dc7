internal import JWSInspectCore

/// Parses a subcommand's arguments against its option table.
///
/// Accepts `--name value`, `--name=value`, `-x value`, `-xvalue` and short flags run together
/// (`-qj2` is `-q -j 2`), as POSIX utilities do; `--` ends options; `-` and every
/// argument not starting with `-` are positional. A choice's value is matched without regard
/// to case, hyphens or underscores (`renewal-info` is `renewalInfo`, `local_testing` is
/// `LocalTesting`) and handed on in its canonical spelling.
enum ArgumentParser {
    /// - Returns: the values, built from `initial` by every option in order, and the positional arguments.
    static func parse<Values>(_ arguments: [String], options: [OptionSpec<Values>], into initial: Values)
        throws(UsageError) -> (values: Values, positional: [String])
    {
        var arguments = arguments
        var values = initial
        var positional: [String] = []
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || argument == "-" || !argument.hasPrefix("-") {
                // "$TOKEN" with TOKEN unset: nothing to read, and no file of that name.
                guard !argument.isEmpty else {
                    throw UsageError("an argument is empty (''): an unset shell variable? Give what the usage names")
                }
                positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            } else if !argument.hasPrefix("--"), argument.count > 2 {
                // `-j2`, `-qj2`: a short option and what follows it in the same word.
                let short = String(argument.prefix(2))
                let rest = String(argument.dropFirst(2))
                if !rest.hasPrefix("-"), let option = options.first(where: { $0.doc.names.contains(short) }) {
                    if option.doc.value == .flag {
                        try option.apply(&values, "")
                        arguments.insert("-" + rest, at: index)
                        continue
                    }
                    (name, inline) = (short, rest)
                }
            }
            guard let option = options.first(where: { $0.doc.names.contains(name) }) else {
                throw UsageError(unknownOptionMessage(name, among: options.flatMap(\.doc.names)))
            }
            let value: String
            switch option.doc.value {
            case .flag:
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                value = ""
            case .value:
                guard let given = inline ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("\(name) needs a value")
                }
                if inline == nil { index += 1 }
                value = given
            case .choice(let choices):
                guard let given = inline ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("\(name) needs a value: \(list(choices))")
                }
                if inline == nil { index += 1 }
                value = try canonical(given, among: choices, option: name)
            case .optionalChoice(let choices, let implied):
                if let inline {
                    value = try canonical(inline, among: choices, option: name)
                } else if index < arguments.count, let next = match(arguments[index], among: choices) {
                    index += 1
                    value = next
                } else {
                    value = implied
                }
            }
            try option.apply(&values, value)
        }
        return (values, positional)
    }

    /// "unknown option '--jsno' (did you mean '--json'?)".
    static func unknownOptionMessage(_ name: String, among names: [String]) -> String {
        let shown = Excerpt.of(name)
        // An output option this subcommand does not honour: said so, with those it takes.
        if OutputOptions.names.contains(name) {
            let taken = names.filter { OutputOptions.names.contains($0) && $0.hasPrefix("--") }
            return "\(shown) is not taken here: of the output options, this subcommand takes "
                + (taken.isEmpty ? "none" : list(taken))
        }
        // A short option's neighbours are one letter away from anything: no guess then.
        guard name.count > 3 else { return "unknown option '\(shown)'" }
        // A typo, else the one option the name begins (`--env`: `--environment`). A prefix is
        // suggested, never taken: an option added later would make it mean another.
        let prefixed = Set(names.filter { $0.hasPrefix(name) })
        guard
            let suggestion = EditDistance.closest(to: name, among: names)
                ?? (prefixed.count == 1 ? prefixed.first : nil)
        else {
            return "unknown option '\(shown)'"
        }
        return "unknown option '\(shown)' (did you mean '\(suggestion)'?)"
    }

    /// Old names of choices, still read: `--format text` is `--format table`.
    static let choiceAliases = ["text": "table"]

    private static func canonical(_ given: String, among choices: [String], option: String) throws(UsageError) -> String
    {
        let alias = choiceAliases[given.lowercased()].flatMap { match($0, among: choices) }
        guard let value = match(given, among: choices) ?? alias else {
            throw UsageError("\(option) must be \(list(choices)), not '\(Excerpt.of(given))'")
        }
        return value
    }

    static func match(_ given: String, among choices: [String]) -> String? {
        let wanted = spelling(given)
        return choices.first { spelling($0) == wanted }
    }

    /// The kind `given` names, in any spelling (`app-transaction`, `appTransaction`,
    /// `APP_TRANSACTION`): how every subcommand reads a kind (fetch, sign, mint, `--type`).
    static func kind<Kind: RawRepresentable & CaseIterable>(_ given: String, of _: Kind.Type) -> Kind?
    where Kind.RawValue == String {
        match(given, among: Kind.allCases.map(\.rawValue)).flatMap(Kind.init(rawValue:))
    }

    /// What a word is matched by: its letters and digits, lowercased (`renewal-info`,
    /// `RENEWAL_INFO` and `renewalInfo` are one word).
    static func spelling(_ word: String) -> String {
        String(word.lowercased().filter { $0 != "-" && $0 != "_" })
    }

    /// The one positional argument a subcommand takes, or why there is not exactly one:
    /// "sign needs a kind: …", "sign takes one kind, not 2 arguments".
    ///
    /// - Parameters:
    ///   - needs: what the subcommand needs, after "needs" ("a kind: api-token, …").
    ///   - noun: the argument, after "takes one" ("kind").
    static func single(_ positional: [String], command: String, needs: String, noun: String)
        throws(UsageError) -> String
    {
        guard positional.count == 1 else {
            throw UsageError(
                positional.isEmpty
                    ? "\(command) needs \(needs)" : "\(command) takes one \(noun), not \(positional.count) arguments")
        }
        return positional[0]
    }

    /// A whole number of ASCII digits within `range` (no sign, no space, at most nine digits).
    static func wholeNumber(_ value: String, option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard !value.isEmpty, value.utf8.count <= 9, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let number = Int(value), range.contains(number)
        else {
            throw UsageError(
                "\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), "
                    + "not '\(Excerpt.of(value))'")
        }
        return number
    }

    /// "table, json or jsonl".
    static func list(_ values: [String]) -> String {
        values.count < 2
            ? values.joined() : values.dropLast().joined(separator: ", ") + " or " + values[values.count - 1]
    }
}

/// Levenshtein distance, for did-you-mean suggestions.
enum EditDistance {
    /// The closest of `candidates` to `word`, when it is close enough to be a likely typo
    /// (at most a third of the word's length, and at most 3 edits).
    static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let allowed = min(3, max(1, word.count / 3))
        return best.1 <= allowed ? best.0 : nil
    }

    /// Edits (insertions, deletions, substitutions, and swaps of neighbours, as in `--mna`)
    /// that turn `a` into `b`: the optimal string alignment distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
