internal import CProgram
internal import JWSInspectCore

/// `--help` texts, made from the subcommands' descriptions and option tables.
enum HelpText {
    static let version = "1.2.0"
    /// The version's date, on the manual pages' `.TH` lines.
    static let versionDate = "2026-12-06"

    /// The git commit the program was built from (12 hexadecimal digits, "-dirty" when the
    /// checkout had changes), or nil when it was not built by `make` from a git checkout.
    static var commit: String? {
        let text = String(cString: jwsinspect_build_commit())
        return text.isEmpty ? nil : text
    }

    /// What `--version` prints, after any subcommand: the version, the commit it was built from
    /// and the OpenSSL in use, e.g. "jwsinspect 1.2.0 (commit e6ddbe4c1a2b, OpenSSL 3.0.19 27 Jan
    /// 2026)".
    static var versionLine: String {
        let built = commit.map { "commit \($0), " } ?? ""
        return "jwsinspect \(version) (\(built)\(OpenSSLInfo.version))\n"
    }

    /// Help is wrapped to this width (and the man page is wrapped by man itself).
    static let width = 80
    /// Where option descriptions start.
    private static let helpColumn = 24

    /// `jwsinspect --help`: everything about the default subcommand, and the others listed.
    static var main: String {
        let inspect = Commands.inspect
        var lines = [
            "jwsinspect — decode and verify App Store signed data (StoreKit 2 transactions, renewal info, App Store Server "
                + "Notifications V2, app transactions).",
            "",
        ]
        lines = lines.flatMap { wrap($0, width: width) }
        lines += usageLines()
        lines.append("")
        for paragraph in inspect.discussion {
            lines += wrap(paragraph, width: width)
            lines.append("")
        }
        lines += optionLines(inspect.options)
        lines += environmentLines(inspect)
        lines.append("Subcommands:")
        for command in Commands.all {
            lines += column("  " + command.name, command.abstract)
        }
        lines.append("")
        lines.append("Exit status (with several inputs, that of the first failing one):")
        for status in ExitStatus.allCases {
            lines += column("  \(status.rawValue)", status.meaning, at: 6)
        }
        lines.append("")
        lines += exampleLines(inspect)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `jwsinspect help SUBCOMMAND` and `jwsinspect SUBCOMMAND --help`.
    static func of(_ command: CommandDoc) -> String {
        if command.name == Commands.inspect.name { return main }
        var lines = wrap("jwsinspect \(command.name) — \(command.abstract).", width: width)
        lines.append("")
        lines += command.usage.enumerated().map { ($0 == 0 ? "usage: " : "       ") + "jwsinspect " + $1 }
        lines.append("")
        for paragraph in command.discussion {
            lines += wrap(paragraph, width: width)
            lines.append("")
        }
        lines += optionLines(command.options)
        lines += environmentLines(command)
        lines += exampleLines(command)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The variables that stand in for the command's options, each with its option: an option
    /// a variable stands in for says so in its help ("Default: $JWSINSPECT_KEY_FILE").
    static func environmentVariables(_ command: CommandDoc) -> [(String, String)] {
        KeyOptions.variables.filter { variable, option in
            command.options.contains { $0.names.contains(option) && $0.help.contains("$" + variable) }
        }
    }

    /// The environment variables that stand in for the command's options, when it has any.
    static func environmentLines(_ command: CommandDoc) -> [String] {
        let variables = environmentVariables(command)
        guard !variables.isEmpty else { return [] }
        var lines = ["Environment (each used when its option is not given; messages name it when it was):"]
        for (variable, option) in variables {
            lines += column("  \(variable)", "as \(option)")
        }
        lines.append("")
        return lines
    }

    /// "usage: jwsinspect …" with every subcommand's usage.
    static func usageLines() -> [String] {
        Commands.all.flatMap(\.usage).enumerated().map { ($0 == 0 ? "usage: " : "       ") + "jwsinspect " + $1 }
    }

    /// The one line printed with a usage error.
    static var usage: String { "usage: jwsinspect " + Commands.inspect.usage[0] }

    private static func optionLines(_ options: [OptionDoc]) -> [String] {
        var lines: [String] = []
        var groups: [String] = []
        for option in options where !groups.contains(option.group) { groups.append(option.group) }
        for group in groups {
            lines.append(group + ":")
            for option in options where option.group == group {
                lines += column("  " + option.synopsis, option.help)
            }
            lines.append("")
        }
        return lines
    }

    private static func exampleLines(_ command: CommandDoc) -> [String] {
        guard !command.examples.isEmpty else { return [] }
        var lines = ["Examples:"]
        for example in command.examples {
            lines += wrap(
                CommandDoc.commandLine(example.command), width: width, indent: "  ", continuation: "      ")
            lines += wrap(example.comment, width: width, indent: "      ", continuation: "      ")
        }
        return lines
    }

    /// A term and its description in two columns; a term too wide for its column gets a line of its own.
    private static func column(_ term: String, _ text: String, at column: Int = helpColumn) -> [String] {
        let pad = String(repeating: " ", count: column)
        var lines = wrap(text, width: width, indent: pad, continuation: pad)
        if term.count + 2 <= column {
            let first = lines[0].dropFirst(column)
            lines[0] = term + String(repeating: " ", count: column - term.count) + first
        } else {
            lines.insert(term, at: 0)
        }
        return lines
    }

    /// Words filled into lines of at most `width` columns (a longer word gets a line of its own).
    static func wrap(_ text: String, width: Int, indent: String = "", continuation: String = "") -> [String] {
        var lines: [String] = []
        var line = indent
        var empty = true
        for word in text.split(separator: " ") {
            if !empty, line.count + 1 + word.count > width {
                lines.append(line)
                line = continuation
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines
    }
}
