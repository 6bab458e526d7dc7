internal import JWSInspectCore

/// `jwsinspect completion bash|zsh|fish`'s options.
struct CompletionOptions: SubcommandOptions {
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    var shell: Shell?
    var showHelp = false
    var showVersion = false

    static let table: [OptionSpec<CompletionOptions>] = StandardOptions.specs(group: "Options")

    static func parse(_ arguments: [String]) throws(UsageError) -> CompletionOptions {
        var (options, positional) = try ArgumentParser.parse(arguments, options: table, into: CompletionOptions())
        if options.showHelp || options.showVersion { return options }
        let shells = Shell.allCases.map(\.rawValue)
        let given = try ArgumentParser.single(
            positional, command: "completion", needs: "a shell: \(ArgumentParser.list(shells))", noun: "shell")
        guard let shell = Shell.allCases.first(where: { $0.rawValue == given.lowercased() }) else {
            throw UsageError(
                "completion: the shell must be \(ArgumentParser.list(shells)), not '\(Excerpt.of(given))'")
        }
        options.shell = shell
        return options
    }
}

/// `jwsinspect help [SUBCOMMAND] [--man]`'s options.
struct HelpOptions: SubcommandOptions {
    var subcommand: CommandDoc?
    var manPage = false
    var showHelp = false
    var showVersion = false

    static let table: [OptionSpec<HelpOptions>] =
        [
            OptionSpec(["--man"], group: "Options", help: "Print the manual page (roff) instead.") { options, _ in
                options.manPage = true
            }
        ] + StandardOptions.specs(group: "Options")

    static func parse(_ arguments: [String]) throws(UsageError) -> HelpOptions {
        var (options, positional) = try ArgumentParser.parse(arguments, options: table, into: HelpOptions())
        if options.showVersion { return options }
        guard positional.count <= 1 else { throw UsageError("help takes at most one subcommand") }
        if let name = positional.first {
            guard let command = Commands.named(name.lowercased()) else {
                let names = Commands.all.map(\.name)
                let suggestion = EditDistance.closest(to: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError(
                    "help: no subcommand '\(Excerpt.of(name))'\(suggestion); there are \(ArgumentParser.list(names))")
            }
            options.subcommand = command
        }
        return options
    }
}
