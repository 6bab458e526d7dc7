internal import AppStoreServerAPI
internal import JWSInspectCore

/// `--format json` (`pretty`: one indented object per result) and `--format jsonl` (the same
/// object on one line): every record has `JSONRecord`'s keys in order, an unreadable input and
/// an unanswered request included, so that every input has its result on standard output.
struct JSONOutput: ResultRenderer {
    let pretty: Bool
    /// The run's serialized header and chain fragments, shared by every token of one chain.
    private let fragments = ChainFragments()

    init(pretty: Bool) {
        self.pretty = pretty
    }

    func result(_ inspection: Inspection) -> String? {
        String(decoding: record(inspection), as: UTF8.self)
    }

    func rendered(_ inspection: Inspection) -> RenderedResult? {
        .bytes(record(inspection))
    }

    /// The result's record and its newline, as UTF-8.
    private func record(_ inspection: Inspection) -> [UInt8] {
        JSONRenderer.bytes(inspection, pretty: pretty, fragments: fragments, newline: true)
    }

    func unreadable(source: String, reason: String) -> String? {
        let object = JSONRecord.record(
            source: source, type: PayloadKind.unknown.rawValue, status: Renderer.unreadableStatus, reason: reason,
            summary: nil)
        return object.serialized(pretty: pretty) + "\n"
    }

    func answer(_ page: FetchedPage) -> String? {
        APIResponseRenderer.record(page).serialized(pretty: pretty) + "\n"
    }

    func unanswered(_ request: UnansweredRequest) -> String? {
        APIResponseRenderer.record(request).serialized(pretty: pretty) + "\n"
    }

    /// One record, `{"schemaVersion": 1, "record": "summary", "total": N, "statuses": {STATUS:
    /// N, …}}`, on one line (on standard error: every line of standard output stays a result).
    func summary(total: Int, counts: [(status: String, count: Int)]) -> String {
        let statuses = OrderedJSON.object(.init(distinct: counts.map { ($0.status, .integer(Int64($0.count))) }))
        let members = RecordType.summary.head + [("total", .integer(Int64(total))), ("statuses", statuses)]
        return OrderedJSON.object(.init(distinct: members)).serialized(pretty: false) + "\n"
    }

    func single(text: () -> String, record: () -> OrderedJSON) -> String {
        record().serialized(pretty: pretty) + "\n"
    }

    func report(
        table: (TableRenderer) -> String, brief: (TableRenderer) -> String, records: () -> [OrderedJSON.Object]
    ) -> String {
        records().map { OrderedJSON.object($0).serialized(pretty: pretty) + "\n" }.joined()
    }

    var separator: String { "" }
}
