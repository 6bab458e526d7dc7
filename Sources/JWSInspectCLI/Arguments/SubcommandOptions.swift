/// What every subcommand's options have: `--help` and `--version`, answered before anything
/// the subcommand needs is asked for (`Command.run`).
protocol SubcommandOptions: SendableMetatype {
    var showHelp: Bool { get set }
    var showVersion: Bool { get set }
}

extension OptionSpec where Values: SubcommandOptions {
    /// `--version`, the same on every subcommand.
    static func version(group: String) -> OptionSpec {
        OptionSpec(["--version"], group: group, help: "The version, and the OpenSSL in use.") { options, _ in
            options.showVersion = true
        }
    }
}
