internal import AppStoreServerAPI
internal import JWSInspectCore

/// `--format table`, the default: a verdict line, then CHECKS, HEADER, CHAIN and PAYLOAD
/// (`TableRenderer` draws them), fetch's API RESPONSE section before an answer's JWS, and
/// nothing on standard output for what standard error already says.
struct TableOutput: ResultRenderer {
    let tables: TableRenderer

    init(color: Bool) {
        tables = TableRenderer(color: color)
    }

    func result(_ inspection: Inspection) -> String? {
        inspection.status == .malformed ? nil : tables.render(inspection)
    }

    func unreadable(source: String, reason: String) -> String? { nil }

    func answer(_ page: FetchedPage) -> String? {
        APIResponseRenderer.section(page, tables: tables)
    }

    func unanswered(_ request: UnansweredRequest) -> String? { nil }

    func summary(total: Int, counts: [(status: String, count: Int)]) -> String {
        let parts = counts.map { "\($0.count) \($0.status)" }
        return CommandIO.errorLine(
            "summary: \(total) result\(total == 1 ? "" : "s")"
                + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
    }

    func single(text: () -> String, record: () -> OrderedJSON) -> String { text() }

    var separator: String { "\n" }
}
