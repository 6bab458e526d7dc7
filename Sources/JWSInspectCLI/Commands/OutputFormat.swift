/// How every subcommand that prints results prints them: readable text (`table`, the default),
/// one pretty JSON object (`json`), or the same object compactly on one line (`jsonl`).
/// `--format text`, the name `sign`, `mint` and `verify-offer-v1` once had for `table`, is read
/// as `table` (`ArgumentParser.choiceAliases`).
enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, jsonl

    /// `--format` and `--json`, with `help` saying what each format prints for the subcommand.
    static func options<Values>(
        group: String, help: String, _ keyPath: any WritableKeyPath<Values, OutputFormat> & Sendable
    ) -> [OptionSpec<Values>] {
        [
            OptionSpec(["--format"], .choice(allCases.map(\.rawValue)), group: group, help: help) { options, value in
                options[keyPath: keyPath] = OutputFormat(rawValue: value) ?? .table
            },
            OptionSpec(["--json"], group: group, help: "Short for --format json.") { options, _ in
                options[keyPath: keyPath] = .json
            },
        ]
    }
}
