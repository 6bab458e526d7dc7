internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect timeline`'s options: inspect's verification, expectations and revocation options
/// (items are verified exactly as inspect verifies them), and the fold's own.
struct TimelineOptions: SubcommandOptions {
    var inspect = InspectOptions()
    /// `--against FILE`: Apple's record (fetch notifications or fetch history output).
    var against: [String] = []
    /// `--customer UUID`: one appAccountToken's subscriptions.
    var customer: UUID?
    /// `--brief` and `--format`, kept in `inspect`, whose output checks (`checkOutput`) hold for
    /// timeline's output too.
    var brief: Bool {
        get { inspect.brief }
        set { inspect.brief = newValue }
    }
    /// `-q`: nothing on standard output; the exit status says it all.
    var quiet: Bool {
        get { inspect.quiet }
        set { inspect.quiet = newValue }
    }
    var failOnAnomaly = false
    var format: OutputFormat {
        get { inspect.format }
        set { inspect.format = newValue }
    }
    var showHelp = false
    var showVersion = false
    var inputs: [String] = []

    static let group = "Folding"
    /// inspect's option groups that timeline takes as they are.
    private static let lifted: Set = [
        InspectOptions.verification, InspectOptions.expectations, InspectOptions.revocation,
    ]
    /// Not for a fold: it folds verified data only (`--no-verify`), decides access itself
    /// (`--require-active` would refuse every lapsed period's item), and recognises kinds (`--type`).
    private static let notLifted: Set = ["--no-verify", "--require-active", "--type"]

    /// inspect's options that timeline takes, applied to its `inspect` options.
    private static let inspectOptions: [OptionSpec<TimelineOptions>] =
        InspectOptions.mainTable.filter { lifted.contains($0.doc.group) && !notLifted.contains($0.doc.names[0]) }.map(
            lift)

    /// An inspect option as timeline's, applied to its `inspect` options.
    private static func lift(_ spec: OptionSpec<InspectOptions>) -> OptionSpec<TimelineOptions> {
        OptionSpec(doc: spec.doc) { options, value throws(UsageError) in try spec.apply(&options.inspect, value) }
    }

    private static let ownOptions: [OptionSpec<TimelineOptions>] =
        [
            OptionSpec(
                ["--against"], .value("FILE"), group: group,
                help: "Apple's record: the answers fetch notifications or fetch history keep with --save (signed, so "
                    + "verified too; repeatable). Every notification or transaction in it and not among the inputs "
                    + "is reported as missed.",
                completes: .files
            ) { options, value in options.against.append(value) },
            OptionSpec(
                ["--customer"], .value("UUID"), group: group,
                help: "Keep only the subscriptions whose transactions carry this appAccountToken."
            ) { options, value throws(UsageError) in
                guard let uuid = UUID(uuidString: value) else {
                    throw UsageError("--customer must be a UUID (an appAccountToken), not '\(Excerpt.of(value))'")
                }
                options.customer = uuid
            },
            OptionSpec(
                ["--fail-on-anomaly"], group: group,
                help: "Exit 9 when an anomaly is found (and every item verified)."
            ) { options, _ in options.failOnAnomaly = true },
            OptionSpec(
                ["--brief"], group: InspectOptions.output, help: "One state line per subscription (tables only)."
            ) { options, _ in options.brief = true },
            OptionSpec(
                ["--quiet", "-q"], group: InspectOptions.output,
                help: "Print nothing on standard output; the exit status says it all (with --fail-on-anomaly: 9 "
                    + "when an anomaly is found)."
            ) { options, _ in options.quiet = true },
        ]
        + InspectOptions.mainTable.filter { ["--jobs", "--time-zone", "--redact"].contains($0.doc.names[0]) }.map(lift)

    static let table: [OptionSpec<TimelineOptions>] =
        inspectOptions + ownOptions
        + OutputFormat.options(
            group: InspectOptions.output,
            help: "Readable timelines (the default); one pretty JSON object per record; or one compact JSON object "
                + "per line.", \.format)
        + [
            OptionSpec(["--help", "-h"], group: InspectOptions.output, help: "This help.") { options, _ in
                options.showHelp = true
            },
            .version(group: InspectOptions.output),
        ]

    static func parse(_ arguments: [String]) throws(UsageError) -> TimelineOptions {
        var (options, inputs) = try ArgumentParser.parse(arguments, options: table, into: TimelineOptions())
        options.inputs = inputs
        try options.inspect.checkOutput()
        return options
    }
}
