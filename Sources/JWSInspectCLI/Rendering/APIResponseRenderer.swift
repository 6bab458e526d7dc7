internal import AppStoreServerAPI
internal import JWSInspectCore

/// What `fetch` shows of an answer besides its JWS: an API RESPONSE section in tables, a
/// record of `type: "apiResponse"` in JSON (with a `status`, as every JSON record has), and
/// the same for a request that got no usable answer.
struct APIResponseRenderer {
    let format: InspectOptions.Format
    let quiet: Bool
    /// Draws the section as the JWS tables are drawn (columns, headings, colour).
    let tables: TableRenderer

    init(format: InspectOptions.Format, quiet: Bool, color: Bool) {
        self.format = format
        self.quiet = quiet
        self.tables = TableRenderer(color: color)
    }

    /// A page that was answered: its request, HTTP status and summary.
    func page(_ page: FetchedPage) -> String? {
        guard !quiet else { return nil }
        switch format {
        case .table:
            var rows: [(String, String)] = [
                ("request", page.request), ("HTTP status", String(page.response.status)),
            ]
            for field in page.summary.fields { rows += Self.rows(field, indent: "") }
            return tables.heading("API RESPONSE") + "  " + TerminalText.safe(page.origin) + "\n"
                + tables.table(rows).joined(separator: "\n") + "\n"
        case .json, .jsonl:
            let status = page.response.status
            let object = JSONRecord.record(
                source: page.origin, type: Self.type, status: FetchStatus.answered.rawValue,
                reason: "\(page.environment.rawValue) answered \(page.request) with HTTP \(status)",
                summary: Self.sentence(page),
                extra: [
                    ("environment", .string(page.environment.rawValue)), ("request", .string(page.request)),
                    ("httpStatus", .integer(Int64(status))),
                    ("response", .object(.init(distinct: page.summary.fields.map { ($0.name, Self.json($0.value)) }))),
                ])
            return object.serialized(pretty: format == .json) + "\n"
        }
    }

    /// The `type` of a record of the API's answer.
    static let type = "apiResponse"

    /// A request that ended without an answer, and why; nil in table mode (standard error says it).
    func failure(source: String, status: FetchStatus, reason: String, httpStatus: Int?, errorCode: Int64?) -> String? {
        guard !quiet, format != .table else { return nil }
        var extra: OrderedJSON.Members = []
        if let httpStatus { extra.append(("httpStatus", .integer(Int64(httpStatus)))) }
        if let errorCode { extra.append(("errorCode", .integer(Int64(errorCode)))) }
        let object = JSONRecord.record(
            source: source, type: Self.type, status: status.rawValue, reason: reason, summary: nil, extra: extra)
        return object.serialized(pretty: format == .json) + "\n"
    }

    /// One line for the answer: "Production answered: bundleId com.example.app, hasMore false,
    /// signedTransactions 7." (the environment said once, the revision, a paging cursor, left out).
    static func sentence(_ page: FetchedPage) -> String {
        let parts = page.summary.fields.compactMap { field -> String? in
            guard field.name != "environment", field.name != "revision" else { return nil }
            return switch field.value {
            case .scalar(let value): "\(field.name) \(scalarText(value))"
            case .records(let records): "\(records.count) \(field.name)"
            }
        }
        return "\(page.environment.rawValue) answered"
            + (parts.isEmpty ? "." : ": " + parts.joined(separator: ", ") + ".")
    }

    // MARK: Tables

    private static func rows(_ field: ResponseSummary.Field, indent: String) -> [(String, String)] {
        switch field.value {
        case .scalar(let value):
            let text = scalarText(value)
            return [(indent + field.name, field.meaning.map { "\(text) (\($0))" } ?? text)]
        case .records(let records):
            var rows = [(indent + field.name, field.meaning ?? "\(records.count)")]
            for (index, record) in records.enumerated() {
                var flat: [String] = []
                var inner: [(String, String)] = []
                for item in record {
                    switch item.value {
                    case .scalar(let value):
                        let text = scalarText(value)
                        flat.append("\(item.name) " + (item.meaning.map { "\(text) (\($0))" } ?? text))
                    case .records(let records):
                        // Send attempts: one line each, under their notification.
                        flat.append("\(item.name) " + (item.meaning ?? "\(records.count)"))
                        for (number, attempt) in records.enumerated() {
                            let parts = attempt.map { part -> String in
                                guard case .scalar(let value) = part.value else { return part.name }
                                let text = scalarText(value)
                                return "\(part.name) " + (part.meaning.map { "\(text) (\($0))" } ?? text)
                            }
                            inner.append(("\(indent)    [\(index).\(number)]", parts.joined(separator: " · ")))
                        }
                    }
                }
                rows.append(("\(indent)  [\(index)]", flat.joined(separator: " · ")))
                rows += inner
            }
            return rows
        }
    }

    private static func scalarText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array(let values): "\(values.count) values"
        case .object: "an object"
        }
    }

    // MARK: JSON

    private static func json(_ value: ResponseSummary.Value) -> OrderedJSON {
        switch value {
        case .scalar(let scalar): OrderedJSON(scalar)
        case .records(let records):
            .array(records.map { record in .object(.init(distinct: record.map { ($0.name, json($0.value)) })) })
        }
    }
}
