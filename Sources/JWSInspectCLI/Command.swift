package import AppStoreServerAPI
internal import JWSInspectCore

/// `jwsinspect`: picks the subcommand, parses its options from its table, runs it, and
/// returns the exit status. All terminal knowledge lives in this target; the core returns values.
package enum Command {
    /// Runs with the process's arguments and exits, after restoring the terminal if a paste
    /// was read from it.
    package static func main() -> Never {
        let arguments = Array(System.arguments.dropFirst())
        // `fetch` is a program of its own, the one that links a network library: run it in
        // this process's place, as git runs its subcommands (same streams, same exit status).
        // Without it, fetch runs here as far as its help and usage errors, then says how to get it.
        // `listen` too, the one that links an HTTP server: run as `jwsinspect-fetch listen …`.
        if let first = arguments.first, first == Commands.Name.fetch.rawValue || first == Commands.Name.listen.rawValue,
            let companion = Companion.installedPath
        {
            let passed = first == Commands.Name.fetch.rawValue ? Array(arguments.dropFirst()) : arguments
            let failure = System.execute(companion, arguments: passed)
            _ = System.writeAll("jwsinspect: \(first): cannot run \(companion): \(failure)\n", to: System.standardError)
            System.terminate(ExitStatus.fetchMissing.rawValue)
        }
        main(arguments, transport: nil)
    }

    /// `jwsinspect-fetch`: runs `jwsinspect fetch` with the process's arguments, or `jwsinspect
    /// listen` when the first is `listen`, sending requests with `transport` and receiving
    /// notifications with `server` (nil: built without an HTTP server library).
    package static func main(fetchingWith transport: any HTTPTransport, serving server: (any NotificationServer)?)
        -> Never
    {
        let arguments = Array(System.arguments.dropFirst())
        if arguments.first == Commands.Name.listen.rawValue {
            main(arguments, transport: transport, server: server)
        }
        main([Commands.Name.fetch.rawValue] + arguments, transport: transport, server: server)
    }

    private static func main(
        _ arguments: [String], transport: (any HTTPTransport)?, server: (any NotificationServer)? = nil
    )
        -> Never
    {
        // A closed standard input (`<&-`) is noted, then its descriptor taken by /dev/null, so
        // that no file opened later lands on descriptor 0 and is read as standard input.
        let standardInputClosed = !System.isOpen(System.standardInput)
        if standardInputClosed { System.occupyWithNull() }
        var io = CommandIO.process(standardInputClosed: standardInputClosed)
        io.transport = transport
        io.server = server
        let status = run(arguments, io: io)
        TerminalPaste.restore()
        System.terminate(status)
    }

    /// Runs with `arguments` (without the program name), reading and writing through `io`,
    /// and returns the exit status.
    package static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        let (name, rest) = subcommand(of: arguments)
        do throws(UsageError) {
            if name == .inspect, let first = arguments.first, Commands.Name(rawValue: first) == nil {
                if let meant = verbMeant(first) {
                    throw UsageError("'\(first)' is no file and no subcommand: \(meant)")
                }
                if let meant = mistypedSubcommand(first) {
                    throw UsageError("'\(Excerpt.of(first))' is no file and no subcommand (did you mean '\(meant)'?)")
                }
            }
            guard let subcommand = Commands.subcommand(name) else {
                // Every name has its type (a test holds the two together): never run another instead.
                io.error("internal error: no subcommand '\(name.rawValue)'")
                return ExitStatus.software.rawValue
            }
            return try subcommand.main(rest, io: io)
        } catch {
            io.error(error.message)
            let usage = name == .inspect ? HelpText.usage : "usage: jwsinspect " + usageLine(name, for: rest)
            io.error(usage + " (see \(name == .inspect ? "--help" : "jwsinspect help \(name.rawValue)"))")
            return ExitStatus.usage.rawValue
        }
    }

    /// What a first argument that is a common verb (`verify`, `decode`, `version`) and names no
    /// file is meant to be: jwsinspect verifies what it is given, with no verb.
    static func verbMeant(_ argument: String) -> String? {
        guard System.kind(ofPath: argument) == nil else { return nil }
        switch argument.lowercased() {
        case "verify", "check", "validate":
            return "jwsinspect verifies what it is given, with no verb: jwsinspect FILE|JWS"
        case "decode", "show", "print", "parse":
            return "jwsinspect shows what it verifies, with no verb: jwsinspect FILE|JWS "
                + "(--no-verify decodes without verifying)"
        case "version":
            return "the version is jwsinspect --version"
        default:
            return nil
        }
    }

    /// The subcommand a first argument is one edit from (`fecth`, `Fetch`), when it names no
    /// file and reads as a word rather than a path or a token.
    static func mistypedSubcommand(_ argument: String) -> String? {
        guard argument.count >= 3, argument.count <= 20, argument.allSatisfy({ $0.isLetter || $0 == "-" }),
            !argument.hasPrefix("-"), System.kind(ofPath: argument) == nil
        else { return nil }
        let word = argument.lowercased()
        return Commands.Name.allCases.map(\.rawValue).first { EditDistance.distance(word, $0) <= 1 }
    }

    /// The usage line of the kind the arguments name (`mint transaction`: the token line), else
    /// the subcommand's only one, or one naming each of its kinds.
    static func usageLine(_ name: Commands.Name, for arguments: [String]) -> String {
        let usage = Commands.named(name.rawValue)?.usage ?? [""]
        let kind = arguments.first { !$0.hasPrefix("-") }.map(ArgumentParser.spelling)
        let line = usage.first { line in
            let words = line.split(separator: " ")
            return words.count > 1
                && words[1].split(separator: "|").contains { ArgumentParser.spelling(String($0)) == kind }
        }
        if let line { return line }
        guard usage.count > 1 else { return usage[0] }
        // No kind, or none of its: every kind, not the first kind's line as if it were meant.
        let kinds = usage.compactMap { $0.split(separator: " ").dropFirst().first }
        return "\(name.rawValue) \(kinds.joined(separator: "|")) [options]"
    }

    /// The subcommand named by the first argument, and the arguments after it; `inspect` (and
    /// every argument) when the first argument names none (a file called `help` is `./help`).
    static func subcommand(of arguments: [String]) -> (name: Commands.Name, arguments: [String]) {
        if let first = arguments.first, let name = Commands.Name(rawValue: first) {
            return (name, Array(arguments.dropFirst()))
        }
        return (.inspect, arguments)
    }
}

/// `jwsinspect completion bash|zsh|fish`.
enum CompletionCommand {
    static func run(_ options: CompletionOptions, io: CommandIO) -> Int32 {
        guard !options.showHelp, let shell = options.shell else {
            return Output.print(HelpText.of(Commands.completion), io: io)
        }
        return Output.print(CompletionScripts.script(for: shell), io: io)
    }
}

/// `jwsinspect help [SUBCOMMAND] [--man]`.
enum HelpCommand {
    static func run(_ options: HelpOptions, io: CommandIO) -> Int32 {
        if options.showHelp { return Output.print(HelpText.of(Commands.help), io: io) }
        if options.manPage { return Output.print(options.subcommand.map(ManPage.text(for:)) ?? ManPage.text, io: io) }
        return Output.print(options.subcommand.map(HelpText.of) ?? HelpText.main, io: io)
    }
}
