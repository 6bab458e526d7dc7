/// A subcommand as one type: its name and documentation, how its arguments are parsed, how it
/// runs. `Commands.registry` lists them, the only registry there is: `Command.run` finds the
/// subcommand a run names there, and help, the man pages and the completions read its `doc`.
protocol Subcommand: SendableMetatype {
    associatedtype Options: SubcommandOptions
    static var name: Commands.Name { get }
    /// What `--help`, the man page and the completions show of it.
    static var doc: CommandDoc { get }
    static func parse(_ arguments: [String]) throws(UsageError) -> Options
    static func run(_ options: Options, io: CommandIO) -> Int32
}

extension Subcommand {
    /// Parses the arguments and runs, answering `--version` first, the same for every subcommand.
    static func main(_ arguments: [String], io: CommandIO) throws(UsageError) -> Int32 {
        let options = try parse(arguments)
        if options.showVersion && !options.showHelp { return Output.print(HelpText.versionLine, io: io) }
        return run(options, io: io)
    }
}

extension InspectCommand: Subcommand {
    static let name = Commands.Name.inspect
    static var doc: CommandDoc { Commands.inspect }
    static func parse(_ arguments: [String]) throws(UsageError) -> InspectOptions {
        try InspectOptions.parse(arguments)
    }
}

extension FetchCommand: Subcommand {
    static let name = Commands.Name.fetch
    static var doc: CommandDoc { Commands.fetch }
    static func parse(_ arguments: [String]) throws(UsageError) -> FetchOptions { try FetchOptions.parse(arguments) }
}

extension ListenCommand: Subcommand {
    static let name = Commands.Name.listen
    static var doc: CommandDoc { Commands.listen }
    static func parse(_ arguments: [String]) throws(UsageError) -> ListenOptions { try ListenOptions.parse(arguments) }
}

extension SignCommand: Subcommand {
    static let name = Commands.Name.sign
    static var doc: CommandDoc { Commands.sign }
    static func parse(_ arguments: [String]) throws(UsageError) -> SignOptions { try SignOptions.parse(arguments) }
}

extension MintCommand: Subcommand {
    static let name = Commands.Name.mint
    static var doc: CommandDoc { Commands.mint }
    static func parse(_ arguments: [String]) throws(UsageError) -> MintOptions { try MintOptions.parse(arguments) }
}

extension TimelineCommand: Subcommand {
    static let name = Commands.Name.timeline
    static var doc: CommandDoc { Commands.timeline }
    static func parse(_ arguments: [String]) throws(UsageError) -> TimelineOptions {
        try TimelineOptions.parse(arguments)
    }
}

extension VerifyOfferV1Command: Subcommand {
    static let name = Commands.Name.verifyOfferV1
    static var doc: CommandDoc { Commands.verifyOfferV1 }
    static func parse(_ arguments: [String]) throws(UsageError) -> VerifyOfferV1Options {
        try VerifyOfferV1Options.parse(arguments)
    }
}

extension CompletionCommand: Subcommand {
    static let name = Commands.Name.completion
    static var doc: CommandDoc { Commands.completion }
    static func parse(_ arguments: [String]) throws(UsageError) -> CompletionOptions {
        try CompletionOptions.parse(arguments)
    }
}

extension HelpCommand: Subcommand {
    static let name = Commands.Name.help
    static var doc: CommandDoc { Commands.help }
    static func parse(_ arguments: [String]) throws(UsageError) -> HelpOptions { try HelpOptions.parse(arguments) }
}

extension Commands {
    /// Every subcommand, in the order help lists them: the one registry (a test holds `all` and
    /// `Name` to it).
    static let registry: [any Subcommand.Type] = [
        InspectCommand.self, FetchCommand.self, ListenCommand.self, SignCommand.self, MintCommand.self,
        TimelineCommand.self, VerifyOfferV1Command.self, CompletionCommand.self, HelpCommand.self,
    ]

    /// The subcommand of that name.
    static func subcommand(_ name: Name) -> (any Subcommand.Type)? {
        registry.first { $0.name == name }
    }
}
