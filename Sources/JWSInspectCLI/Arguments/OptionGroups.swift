/// The options every subcommand that prints takes, declared once (as swift-argument-parser's
/// `@OptionGroup`): a subcommand's options hold one `OutputOptions`, and its table lifts the
/// options of it the subcommand honours (`specs`). One it does not honour is not in its table:
/// the parser refuses it (exit 64), naming the options it does take.
struct OutputOptions: Sendable {
    enum ColorChoice: String, CaseIterable, Sendable {
        case auto, always, never
    }

    /// The options of the group, in the order help lists them.
    enum Option: CaseIterable, Sendable {
        /// `--format table|json|jsonl` and `--json`.
        case format
        /// `--quiet`, `-q`: nothing on standard output.
        case quiet
        /// `--brief`: the support desk's lines.
        case brief
        /// `--time-zone`: the zone tables show dates in.
        case timeZone
        /// `--redact`: customer identifiers as salted hashes.
        case redact
        /// `--summary`: results counted by status, on standard error.
        case summary
        /// `--color[=WHEN]` and `--no-color`.
        case color
    }

    var format = OutputFormat.table
    var quiet = false
    /// `--brief`: the verdict line, a failure's reason and the summary line alone.
    var brief = false
    /// `--time-zone`: the zone tables show dates in, as given (resolved when the run starts).
    var timeZone: String?
    /// `--redact`: customer identifiers replaced by salted hashes in every format (`Redaction`).
    var redact = false
    var summary = false
    var color = ColorChoice.auto

    /// Every name of the group's options (`--format`, `-q`, …).
    static let names: Set<String> = Set(
        Option.allCases.flatMap { specs($0, group: "", help: nil) }.flatMap(\.doc.names))

    /// The options of `taking`, applied to the group at `path`, under the help heading `group`;
    /// `help` words an option for the subcommand where the default wording does not fit.
    static func specs<Parent>(
        _ path: any WritableKeyPath<Parent, OutputOptions> & Sendable, taking: Set<Option>, group: String,
        help: [Option: String] = [:]
    ) -> [OptionSpec<Parent>] {
        var specs: [OptionSpec<OutputOptions>] = []
        for option in Option.allCases where taking.contains(option) {
            specs += self.specs(option, group: group, help: help[option])
        }
        return specs.map { $0.lifted(path) }
    }

    private static func specs(_ option: Option, group: String, help: String?) -> [OptionSpec<OutputOptions>] {
        switch option {
        case .format:
            return OutputFormat.options(
                group: group,
                help: help
                    ?? "Readable tables (the default); one pretty JSON object per JWS; or one compact JSON object per "
                    + "line.", \.format)
        case .quiet:
            return [
                OptionSpec(
                    ["--quiet", "-q"], group: group,
                    help: help ?? "Print nothing on standard output; the exit status says it all."
                ) { options, _ in options.quiet = true }
            ]
        case .brief:
            return [
                OptionSpec(
                    ["--brief"], group: group,
                    help: help
                        ?? "Per item only the verdict line, the failed check's reason and the summary line, for a "
                        + "support desk (tables only)."
                ) { options, _ in options.brief = true }
            ]
        case .timeZone:
            return [
                OptionSpec(
                    ["--time-zone"], .value("local|UTC|ZONE"), group: group,
                    help: help
                        ?? "Show the dates of tables in this zone: local (TZ, else /etc/localtime), UTC (the default), "
                        + "an IANA name such as Europe/Paris, or an offset such as +02:00; JSON stays UTC."
                ) { options, value in options.timeZone = value }
            ]
        case .redact:
            return [
                OptionSpec(
                    ["--redact"], group: group,
                    help: help
                        ?? "Replace customer identifiers (transaction, original transaction, web order line item and "
                        + "app transaction IDs, appAccountToken, device verification, a receipt's, the ID fetch asks "
                        + "about) with salted hashes in every format and on standard error, so output can be pasted "
                        + "into a ticket; nested JWS are replaced whole. The salt is JWSINSPECT_REDACT_SALT (the "
                        + "same hashes in every run), else one of this run."
                ) { options, _ in options.redact = true }
            ]
        case .summary:
            return [
                OptionSpec(
                    ["--summary"], group: group,
                    help: help
                        ?? "After everything, count results by status on standard error (one JSON object there with "
                        + "--format json or jsonl: a summary record)."
                ) { options, _ in options.summary = true }
            ]
        case .color:
            return [
                OptionSpec(
                    ["--color"], .optionalChoice(ColorChoice.allCases.map(\.rawValue), implied: "always"), group: group,
                    help: help
                        ?? "Colours: auto (the default: on for a terminal, off when NO_COLOR is set and not empty or "
                        + "TERM is dumb, on when CLICOLOR_FORCE is set and not 0), always, or never. --color alone "
                        + "means always."
                ) { options, value in options.color = ColorChoice(rawValue: value) ?? .auto },
                OptionSpec(["--no-color"], group: group, help: "Short for --color=never.") { options, _ in
                    options.color = .never
                },
            ]
        }
    }

    /// Whether to colour tables: an explicit choice, else NO_COLOR (set and not empty) turns
    /// colours off, CLICOLOR_FORCE (set and not 0) on, TERM=dumb off, and a terminal on.
    func usesColor(stdoutIsTerminal: Bool, environment: (String) -> String?) -> Bool {
        switch color {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment("NO_COLOR"), !noColor.isEmpty { return false }
            if let force = environment("CLICOLOR_FORCE"), !force.isEmpty, force != "0" { return true }
            if environment("TERM") == "dumb" { return false }
            return stdoutIsTerminal
        }
    }
}

/// `--help` and `--version`, the same on every subcommand, declared once.
enum StandardOptions {
    static func specs<Values: SubcommandOptions>(group: String) -> [OptionSpec<Values>] {
        [
            OptionSpec(["--help", "-h"], group: group, help: "This help.") { options, _ in options.showHelp = true },
            OptionSpec(["--version"], group: group, help: "The version, and the OpenSSL in use.") { options, _ in
                options.showVersion = true
            },
        ]
    }
}

extension OptionSpec {
    /// This option of a group, applied to the group where `path` holds it in `Parent`'s options.
    func lifted<Parent>(_ path: any WritableKeyPath<Parent, Values> & Sendable) -> OptionSpec<Parent> {
        let apply = self.apply
        return OptionSpec<Parent>(doc: doc) { options, value throws(UsageError) in
            try apply(&options[keyPath: path], value)
        }
    }
}
