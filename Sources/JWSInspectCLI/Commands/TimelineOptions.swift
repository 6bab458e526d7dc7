internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect timeline`'s options: inspect's verification, expectations, revocation and output
/// groups (items are verified exactly as inspect verifies them), and the fold's own.
struct TimelineOptions: SubcommandOptions {
    var inspect = InspectOptions()
    /// `--against FILE`: Apple's record (fetch notifications or fetch history output).
    var against: [String] = []
    /// `--customer UUID`: one appAccountToken's subscriptions.
    var customer: UUID?
    /// The output group (`inspect.output`) and the verification groups are kept in `inspect`,
    /// whose checks (`checkOutput`) hold for timeline's output too.
    var failOnAnomaly = false
    var showHelp = false
    var showVersion = false
    var inputs: [String] = []

    static let group = "Folding"

    /// inspect's groups timeline takes, applied to its `inspect` options: items are verified
    /// exactly as inspect verifies them. Not `--no-verify` (a fold reads verified data only),
    /// `--require-active` (a fold decides access itself; it would refuse every lapsed period's
    /// item), `--type` (kinds are recognised), `--first-line` or `--exact`.
    private static let inspectGroups: [OptionSpec<InspectOptions>] =
        InspectOptions.trust + InspectOptions.revocationChecks + InspectOptions.appExpectations
        + InspectOptions.identityExpectations

    /// The output group, worded for a fold, and `--jobs`.
    private static let outputGroup: [OptionSpec<InspectOptions>] =
        OutputOptions.specs(
            \.output, taking: Set(OutputOptions.Option.allCases), group: InspectOptions.output,
            help: [
                .format:
                    "Readable timelines (the default); one pretty JSON object per record; or one compact JSON "
                    + "object per line.",
                .quiet:
                    "Print nothing on standard output; the exit status says it all (with --fail-on-anomaly: 9 when "
                    + "an anomaly is found).",
                .brief: "One state line per subscription (tables only).",
                .summary:
                    "After everything, count the items read by status on standard error (one JSON object there "
                    + "with --format json or jsonl: a summary record).",
            ])
        + InspectOptions.jobsOption

    private static let ownOptions: [OptionSpec<TimelineOptions>] = [
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
    ]

    static let table: [OptionSpec<TimelineOptions>] =
        inspectGroups.map { $0.lifted(\.inspect) } + ownOptions + outputGroup.map { $0.lifted(\.inspect) }
        + StandardOptions.specs(group: InspectOptions.output)

    static func parse(_ arguments: [String]) throws(UsageError) -> TimelineOptions {
        var (options, inputs) = try ArgumentParser.parse(arguments, options: table, into: TimelineOptions())
        options.inputs = inputs
        try options.inspect.checkOutput()
        return options
    }
}
