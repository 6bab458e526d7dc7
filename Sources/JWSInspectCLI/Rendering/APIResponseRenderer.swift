internal import AppStoreServerAPI
internal import JWSInspectCore

/// What `fetch` shows of an answer besides its JWS: an API RESPONSE section in tables
/// (`TableOutput`), a record of `type: "apiResponse"` in JSON (`JSONOutput`, with a `status`, as
/// every JSON record has), and the same record for a request that got no usable answer.
enum APIResponseRenderer {
    /// A page that was answered, as a table section: its request, HTTP status and summary.
    static func section(_ page: FetchedPage, tables: TableRenderer) -> String {
        var rows: [(String, String)] = [
            ("request", page.request), ("HTTP status", String(page.response.status)),
        ]
        for field in page.summary.fields { rows += Self.rows(field, indent: "") }
        return tables.heading("API RESPONSE") + "  " + TerminalText.safe(page.origin) + "\n"
            + tables.table(rows).joined(separator: "\n") + "\n"
    }

    /// A page that was answered, as a record: `JSONRecord`'s keys, then its environment,
    /// request, HTTP status and the answer's unsigned fields under `response`.
    static func record(_ page: FetchedPage) -> OrderedJSON {
        let status = page.response.status
        return JSONRecord.record(
            source: page.origin, type: Self.type, status: FetchStatus.answered.rawValue,
            reason: "\(page.environment.rawValue) answered \(page.request) with HTTP \(status)",
            summary: Self.sentence(page),
            extra: [
                ("environment", .string(page.environment.rawValue)), ("request", .string(page.request)),
                ("httpStatus", .integer(Int64(status))),
                ("response", .object(.init(distinct: page.summary.fields.map { ($0.name, Self.json($0.value)) }))),
            ])
    }

    /// The `type` of a record of the API's answer.
    static let type = "apiResponse"

    /// A request that ended without an answer, and why.
    static func record(_ request: UnansweredRequest) -> OrderedJSON {
        var extra: OrderedJSON.Members = []
        if let httpStatus = request.httpStatus { extra.append(("httpStatus", .integer(Int64(httpStatus)))) }
        if let errorCode = request.errorCode { extra.append(("errorCode", .integer(Int64(errorCode)))) }
        return JSONRecord.record(
            source: request.source, type: Self.type, status: request.status.rawValue, reason: request.reason,
            summary: nil, extra: extra)
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
