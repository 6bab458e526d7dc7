/// `jwsinspect help --man`: the manual page in roff (installed as share/man/man1/jwsinspect.1),
/// made from the same descriptions as `--help`; `jwsinspect help SUBCOMMAND --man`: that
/// subcommand's own page, `jwsinspect-fetch(1)` and the like, with every option it takes.
enum ManPage {
    /// The `.TH` line: the page's name, section 1, the version's date, and the version.
    static func title(_ name: String) -> String {
        ".TH \(name.uppercased()) 1 \"\(HelpText.versionDate)\" \"jwsinspect \(HelpText.version)\" \"User Commands\""
    }

    /// The page's file name, as `make install` writes it: `jwsinspect.1`, `jwsinspect-fetch.1`.
    static func fileName(_ command: CommandDoc) -> String { pageName(command) + ".1" }

    /// `jwsinspect` for the default subcommand's page, `jwsinspect-fetch` for another's.
    static func pageName(_ command: CommandDoc) -> String {
        command.name == Commands.inspect.name ? "jwsinspect" : "jwsinspect-\(command.name)"
    }

    /// The page of one subcommand (the top page for `inspect`).
    static func text(for command: CommandDoc) -> String {
        guard command.name != Commands.inspect.name else { return text }
        let name = pageName(command)
        var out: [String] = [
            title(name), ".nh", ".ad l", ".SH NAME", "\(escape(name)) \\- \(escape(command.abstract))", ".SH SYNOPSIS",
        ]
        for usage in command.usage {
            out += [".B jwsinspect", escape(usage), ".br"]
        }
        out.append(".SH DESCRIPTION")
        for paragraph in command.discussion {
            out += [".PP", escape(paragraph)]
        }
        out.append(".SH OPTIONS")
        out += optionLines(command.options)
        let variables = HelpText.environmentVariables(command)
        if !variables.isEmpty {
            out.append(".SH ENVIRONMENT")
            for (variable, option) in variables {
                out += [".TP", "\\fB\(variable)\\fR", escape("Used as \(option) when it is not given.")]
            }
        }
        if !command.examples.isEmpty {
            out.append(".SH EXAMPLES")
            for example in command.examples {
                out += [
                    ".PP", escape(example.comment + ":"), ".RS", ".nf", escape(CommandDoc.commandLine(example.command)),
                    ".fi",
                    ".RE",
                ]
            }
        }
        out += [".SH SEE ALSO", seeAlso(except: command)]
        return out.joined(separator: "\n") + "\n"
    }

    /// The other pages, then jq and openssl.
    private static func seeAlso(except command: CommandDoc) -> String {
        let pages = Commands.all.filter { $0.name != command.name && $0.name != Commands.help.name }.map {
            "\\fB\(escape(pageName($0)))\\fR(1)"
        }
        return (pages + ["\\fBjq\\fR(1)", "\\fBopenssl\\fR(1)"]).joined(separator: ", ")
    }

    static var text: String {
        var out: [String] = [
            title("jwsinspect"),
            ".nh",
            ".ad l",
            ".SH NAME",
            "jwsinspect \\- decode and verify App Store signed data",
            ".SH SYNOPSIS",
        ]
        for usage in Commands.all.flatMap(\.usage) {
            out += [".B jwsinspect", escape(usage), ".br"]
        }
        out.append(".SH DESCRIPTION")
        out.append(
            escape(
                "jwsinspect decodes and verifies App Store signed data: StoreKit 2 transactions, renewal info, App Store "
                    + "Server Notifications V2, app transactions, and the JWS in App Store Server API responses, as Apple's libraries do, "
                    + "and shows header, certificate chain and payload as tables or JSON."))
        for paragraph in Commands.inspect.discussion {
            out += [".PP", escape(paragraph)]
        }
        out.append(".SH OPTIONS")
        out += optionLines(Commands.inspect.options)
        out.append(".SH COMMANDS")
        for command in Commands.all {
            out += [".TP", "\\fB\(escape(command.name))\\fR", escape(command.abstract + ".")]
            for paragraph in command.discussion where command.name != Commands.inspect.name {
                out += [".IP", escape(paragraph)]
            }
        }
        out.append(".SH EXIT STATUS")
        out.append(escape("With several inputs, the status of the first failing one."))
        for status in ExitStatus.allCases {
            out += [".TP", "\\fB\(status.rawValue)\\fR", escape(status.meaning + ".")]
        }
        out.append(".SH ENVIRONMENT")
        for (name, meaning) in environment {
            out += [".TP", "\\fB\(name)\\fR", escape(meaning)]
        }
        out.append(".SH EXAMPLES")
        for command in Commands.all {
            for example in command.examples {
                out += [
                    ".PP", escape(example.comment + ":"), ".RS", ".nf", escape(CommandDoc.commandLine(example.command)),
                    ".fi",
                    ".RE",
                ]
            }
        }
        out += [".SH SEE ALSO", seeAlso(except: Commands.inspect)]
        return out.joined(separator: "\n") + "\n"
    }

    static let environment =
        [
            ("NO_COLOR", "Set and not empty: no colours (unless --color always)."),
            (
                "CLICOLOR_FORCE",
                "Set and not 0: colours even when standard output is not a terminal (unless NO_COLOR or --color never)."
            ),
            ("TERM", "dumb: no colours by default."),
        ] + KeyOptions.environment

    private static func optionLines(_ options: [OptionDoc]) -> [String] {
        var out: [String] = []
        var groups: [String] = []
        for option in options where !groups.contains(option.group) { groups.append(option.group) }
        for group in groups {
            out += [".SS \(escape(group))"]
            for option in options where option.group == group {
                out += [".TP", "\\fB" + escape(option.synopsis) + "\\fR", escape(option.help)]
            }
        }
        return out
    }

    /// Text as roff shows it: backslashes escaped, hyphens as minus signs (options copy and
    /// paste correctly), characters outside ASCII named, and a line that starts with a dot or
    /// quote made literal.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default:
                // Outside ASCII as a named glyph (\[u2014]), which every roff reads whatever its input encoding.
                for scalar in character.unicodeScalars {
                    if scalar.isASCII {
                        out.unicodeScalars.append(scalar)
                    } else {
                        let hex = String(scalar.value, radix: 16, uppercase: true)
                        out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                    }
                }
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
