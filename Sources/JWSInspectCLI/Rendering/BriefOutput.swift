internal import AppStoreServerAPI
internal import JWSInspectCore

/// `--brief`, for a support desk: per item the verdict line and the summary line, one item
/// after another; an API answer's unsigned fields are left out. Everything else as in tables.
struct BriefOutput: ResultRenderer {
    let table: TableOutput

    func result(_ inspection: Inspection) -> String? {
        table.brief(inspection)
    }

    func unreadable(source: String, reason: String) -> String? { nil }

    func answer(_ page: FetchedPage) -> String? { nil }

    func unanswered(_ request: UnansweredRequest) -> String? { nil }

    func summary(total: Int, counts: [(status: String, count: Int)]) -> String {
        table.summary(total: total, counts: counts)
    }

    func single(text: () -> String, record: () -> OrderedJSON) -> String { text() }

    func report(
        table: (TableRenderer) -> String, brief: (TableRenderer) -> String, records: () -> [OrderedJSON.Object]
    ) -> String {
        self.table.zone.rewrite(brief(self.table.tables))
    }

    var separator: String { "" }
}
