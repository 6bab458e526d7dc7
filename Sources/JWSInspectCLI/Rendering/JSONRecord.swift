internal import JWSInspectCore

/// The JSON contract's record types: every object any subcommand writes in `--format
/// json|jsonl` (and `--summary`'s on standard error) begins with `schemaVersion` and `record`,
/// the record's type, whose JSON Schema is `docs/schema/RECORD.schema.json`.
enum RecordType: String, CaseIterable {
    /// A verification's result (inspect; fetch's JWS; a nested token's, inside `nested`).
    case result
    /// fetch: the App Store Server API's answer, or why there is none.
    case apiResponse
    /// verify-offer-v1: a legacy promotional offer signature's verification.
    case offerVerificationV1
    /// sign (a JWS kind) and mint (a token kind): the token made.
    case token
    /// sign promotional-offer-v1: the legacy offer signature made.
    case offerSignatureV1
    /// `--summary`, on standard error: results counted by status.
    case summary
    /// timeline: a subscription's state and events; an anomaly; an item not folded; the counts.
    case subscription, anomaly, skipped, timelineSummary
    /// listen: a request's (or an imported notification's) outcome; a forward's; the counts (on
    /// standard error).
    case delivery, forward, listenSummary
    /// The lines of listen's log: a notification stored; a forward delivered.
    case stored, forwarded

    /// The version of every record's schema: raised when a key is removed, renamed or changes
    /// type, never for a key added (docs/schema/README.md).
    static let schemaVersion: Int64 = 1

    /// The members every record begins with.
    var head: OrderedJSON.Members {
        [("schemaVersion", .integer(Self.schemaVersion)), ("record", .string(rawValue))]
    }
}

/// The one shape of every JSON record of a verification: the README's documented keys, in
/// their order, then the record's own members. A verified input fills them all
/// (`JSONRenderer`); any other record (an unreadable input, an App Store Server API answer)
/// has them too, with nothing decided, so that `jq -r .summary` or `.checks[]` reads every
/// line alike.
enum JSONRecord {
    /// The documented keys, in order (the README's JSON table; a test holds the two together).
    static let keys = [
        "schemaVersion", "record", "source", "type", "envelope", "status", "reason", "verified", "authentic", "xcode",
        "summary", "access", "checkTime", "validNow", "checks", "notes", "header", "chain", "payload", "display",
        "unknownFields", "unknownValues", "nested",
    ]

    /// A record of something that is not a JWS or receipt inspect verified: the documented keys
    /// (by default nothing verified, no checks), then `extra`.
    static func record(
        _ record: RecordType = .result, source: String, type: String, status: String, reason: String,
        summary: String?, verified: Bool = false, checks: [OrderedJSON] = [], notes: [String] = [],
        checkTime: OrderedJSON = .null, payload: OrderedJSON = .null, display: OrderedJSON = .null,
        extra: OrderedJSON.Members = []
    ) -> OrderedJSON {
        let members: OrderedJSON.Members = [
            ("source", .string(source)), ("type", .string(type)), ("envelope", .null), ("status", .string(status)),
            ("reason", .string(reason)), ("verified", .bool(verified)), ("authentic", .bool(verified)),
            ("xcode", .bool(false)), ("summary", summary.map { .string($0) } ?? .null), ("access", .null),
            ("checkTime", checkTime), ("validNow", .null), ("checks", .array(checks)),
            ("notes", .array(notes.map { .string($0) })), ("header", .null), ("chain", .array([])),
            ("payload", payload), ("display", display), ("unknownFields", .array([])), ("unknownValues", .array([])),
            ("nested", .object(.init(distinct: []))),
        ]
        return .object(.init(distinct: record.head + members + extra))
    }
}

/// The `status` of a `fetch` record of type `apiResponse`: an answer read, or why there is none.
enum FetchStatus: String, CaseIterable {
    case answered
    case notFound = "not-found"
    case unauthorized, refused, unavailable, malformed
    case untrustedCertificate = "untrusted-certificate"
    case signingFailed = "signing-failed"
}
