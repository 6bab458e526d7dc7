internal import AppStoreServerAPI
internal import JWSInspectCore

/// `--format table`, the default: a verdict line, then CHECKS, HEADER, CHAIN and PAYLOAD
/// (`TableRenderer` draws them), fetch's API RESPONSE section before an answer's JWS, and
/// nothing on standard output for what standard error already says.
struct TableOutput: ResultRenderer {
    let tables: TableRenderer
    /// `--time-zone`: the payload's dates, summaries and access are worded in it, and the
    /// moments in checks, notes and the API's answer rewritten into it.
    let zone: DisplayZone

    init(color: Bool, zone: DisplayZone = .utc) {
        var tables = TableRenderer(color: color)
        tables.style = zone.style
        self.tables = tables
        self.zone = zone
    }

    func result(_ inspection: Inspection) -> String? {
        inspection.status == .malformed ? nil : zone.rewrite(tables.render(inspection))
    }

    /// `--brief`'s two lines, in the zone as a full table is.
    func brief(_ inspection: Inspection) -> String? {
        inspection.status == .malformed ? nil : zone.rewrite(tables.brief(inspection))
    }

    func unreadable(source: String, reason: String) -> String? { nil }

    func answer(_ page: FetchedPage) -> String? {
        zone.rewrite(APIResponseRenderer.section(page, tables: tables))
    }

    func unanswered(_ request: UnansweredRequest) -> String? { nil }

    func summary(total: Int, counts: [(status: String, count: Int)]) -> String {
        let parts = counts.map { "\($0.count) \($0.status)" }
        return CommandIO.errorLine(
            "summary: \(total) result\(total == 1 ? "" : "s")"
                + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
    }

    func single(text: () -> String, record: () -> OrderedJSON) -> String { text() }

    func report(
        table: (TableRenderer) -> String, brief: (TableRenderer) -> String, records: () -> [OrderedJSON.Object]
    ) -> String {
        zone.rewrite(table(tables))
    }

    var separator: String { "\n" }
}
