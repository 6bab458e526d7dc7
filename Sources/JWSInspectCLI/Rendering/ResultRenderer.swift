internal import AppStoreServerAPI
internal import JWSInspectCore

/// One output format: everything a subcommand writes to standard output in it, and its
/// `--summary` line. `table` (`TableOutput`), `--brief` (`BriefOutput`), `json` and `jsonl`
/// (`JSONOutput`, pretty or on one line) and `--quiet` (`QuietOutput`) are its renderers, one
/// file each; `ResultRenderers.make` chooses one per run, the one place that reads the options.
/// The commands write what it returns and never ask which format it is.
protocol ResultRenderer: Sendable {
    /// One verified input (a JWS or a receipt); nil writes nothing (a malformed input in tables,
    /// where standard error alone says it).
    func result(_ inspection: Inspection) -> String?
    /// `result`, as the renderer makes it best: text, or the bytes of UTF-8 text (JSON, which
    /// is written as bytes and never needs to be a String).
    func rendered(_ inspection: Inspection) -> RenderedResult?
    /// An input that could not be read, in its place; nil where standard error alone says it.
    func unreadable(source: String, reason: String) -> String?
    /// `fetch`: an answered page's unsigned fields, before its JWS; nil to leave them out.
    func answer(_ page: FetchedPage) -> String?
    /// `fetch`: a request that ended without a usable answer; nil where standard error alone says it.
    func unanswered(_ request: UnansweredRequest) -> String?
    /// `--summary`: what goes to standard error, the statuses in order with their counts.
    func summary(total: Int, counts: [(status: String, count: Int)]) -> String
    /// A subcommand's one result (`sign`, `mint`, `verify-offer-v1`): the text or the record.
    func single(text: () -> String, record: () -> OrderedJSON) -> String
    /// A subcommand's report (`timeline`): its tables or brief lines (drawn with the renderer's
    /// colours), or its records.
    func report(
        table: (TableRenderer) -> String, brief: (TableRenderer) -> String, records: () -> [OrderedJSON.Object]
    ) -> String
    /// Written between two results (a blank line sets full tables apart).
    var separator: String { get }
}

/// A result for standard output: text, or UTF-8 bytes written as they are.
enum RenderedResult: Sendable {
    case text(String)
    case bytes([UInt8])
}

extension ResultRenderer {
    func rendered(_ inspection: Inspection) -> RenderedResult? {
        result(inspection).map(RenderedResult.text)
    }
}

/// A `fetch` request that got no usable answer: its record's members.
struct UnansweredRequest {
    /// Named as an answered page is ("fetch history ID (Production) page 2"); the whole fetch
    /// ("fetch history ID") when no one call is to blame (nothing found in any environment).
    let source: String
    let status: FetchStatus
    let reason: String
    /// The call's environment and HTTP request, when one call failed.
    var environment: ServerEnvironment? = nil
    var request: String? = nil
    /// The error answer, when there was one.
    var answer: ErrorAnswer? = nil
}

enum ResultRenderers {
    /// The renderer the options ask for.
    static func make(
        format: OutputFormat, brief: Bool = false, quiet: Bool = false, color: Bool = false, zone: DisplayZone = .utc
    ) -> any ResultRenderer {
        let chosen: any ResultRenderer =
            switch format {
            case .table where brief: BriefOutput(table: TableOutput(color: color, zone: zone))
            case .table: TableOutput(color: color, zone: zone)
            case .json: JSONOutput(pretty: true)
            case .jsonl: JSONOutput(pretty: false)
            }
        return quiet ? QuietOutput(summaries: chosen) : chosen
    }
}
