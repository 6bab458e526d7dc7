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
    /// request, HTTP status, `errorCode` and `errorMessage` (null: no error) and the answer's
    /// unsigned fields under `response`. A failure's record has the same members.
    static func record(_ page: FetchedPage) -> OrderedJSON {
        let status = page.response.status
        return JSONRecord.record(
            .apiResponse, source: page.origin, type: Self.type, status: FetchStatus.answered.rawValue,
            reason: "\(page.environment.rawValue) answered \(page.request) with HTTP \(status)",
            summary: Self.sentence(page),
            extra: members(
                environment: page.environment, request: page.request, httpStatus: status, errorCode: nil,
                errorMessage: nil,
                response: .object(.init(distinct: page.summary.fields.map { ($0.name, Self.json($0.value)) }))))
    }

    /// The members after `JSONRecord`'s of every `apiResponse` record, answered or not: each
    /// always there, null when absent.
    private static func members(
        environment: ServerEnvironment?, request: String?, httpStatus: Int?, errorCode: Int64?, errorMessage: String?,
        response: OrderedJSON
    ) -> OrderedJSON.Members {
        [
            ("environment", environment.map { .string($0.rawValue) } ?? .null),
            ("request", request.map { .string($0) } ?? .null),
            ("httpStatus", httpStatus.map { .integer(Int64($0)) } ?? .null),
            ("errorCode", errorCode.map { .integer($0) } ?? .null),
            ("errorMessage", errorMessage.map { .string($0) } ?? .null),
            ("response", response),
        ]
    }

    /// The `type` of a record of the API's answer.
    static let type = "apiResponse"

    /// A request that ended without an answer, and why: the members of an answered page's
    /// record, `response` null.
    static func record(_ request: UnansweredRequest) -> OrderedJSON {
        JSONRecord.record(
            .apiResponse, source: request.source, type: Self.type, status: request.status.rawValue,
            reason: request.reason,
            summary: sentence(request),
            extra: members(
                environment: request.environment, request: request.request, httpStatus: request.answer?.status,
                errorCode: request.answer?.errorCode, errorMessage: request.answer?.errorMessage, response: .null))
    }

    /// One sentence for a request without an answer: "Nothing found (HTTP 404, errorCode
    /// 4040010 TransactionIdNotFoundError)." (`reason` has the details.)
    static func sentence(_ request: UnansweredRequest) -> String {
        let what =
            switch request.status {
            case .answered: "Answered"
            case .notFound: "Nothing found"
            case .unauthorized: "The bearer token was refused"
            case .refused: "The request was refused"
            case .unavailable: "No usable answer yet: try again later"
            case .malformed: "The answer could not be used"
            case .untrustedCertificate: "The server's TLS certificate was not trusted"
            case .signingFailed: "The bearer token could not be signed, so nothing was sent"
            }
        let answer = request.answer.map { answer in
            " (HTTP \(answer.status)" + (answer.errorCode.map { ", " + APIFailure.describe(code: $0) } ?? "") + ")"
        }
        return what + (answer ?? "") + "."
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
