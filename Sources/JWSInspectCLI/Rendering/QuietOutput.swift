internal import AppStoreServerAPI
internal import JWSInspectCore

/// `--quiet`: nothing on standard output, the exit status alone says the verdict; `--summary`
/// still counts, in the format chosen beside it.
struct QuietOutput: ResultRenderer {
    let summaries: any ResultRenderer

    func result(_ inspection: Inspection) -> String? { nil }

    func unreadable(source: String, reason: String) -> String? { nil }

    func answer(_ page: FetchedPage) -> String? { nil }

    func unanswered(_ request: UnansweredRequest) -> String? { nil }

    func summary(total: Int, counts: [(status: String, count: Int)]) -> String {
        summaries.summary(total: total, counts: counts)
    }

    func single(text: () -> String, record: () -> OrderedJSON) -> String { "" }

    func report(
        table: (TableRenderer) -> String, brief: (TableRenderer) -> String, records: () -> [OrderedJSON.Object]
    ) -> String { "" }

    var separator: String { "" }
}
