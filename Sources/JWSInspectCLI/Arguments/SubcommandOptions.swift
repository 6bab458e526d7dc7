/// What every subcommand's options have: `--help` and `--version`, answered before anything
/// the subcommand needs is asked for (`Command.run`); both declared once, in `StandardOptions`.
protocol SubcommandOptions: SendableMetatype {
    var showHelp: Bool { get set }
    var showVersion: Bool { get set }
}
