internal import JWSInspectCore

/// The one shape of every JSON record any subcommand prints: the README's documented keys, in
/// their order, then the record's own members. A verified input fills them all
/// (`JSONRenderer`); any other record (an unreadable input, an App Store Server API answer)
/// has them too, with nothing decided, so that `jq -r .summary` or `.checks[]` reads every
/// line alike.
enum JSONRecord {
    /// The documented keys, in order (the README's JSON table; a test holds the two together).
    static let keys = [
        "source", "type", "envelope", "status", "reason", "verified", "xcode", "summary", "access", "checkTime",
        "validNow", "checks", "notes", "header", "chain", "payload", "display", "unknownFields", "unknownValues",
        "nested",
    ]

    /// A record of something that is not a JWS or receipt inspect verified: the documented keys
    /// (by default nothing verified, no checks), then `extra`.
    static func record(
        source: String, type: String, status: String, reason: String, summary: String?, verified: Bool = false,
        checks: [OrderedJSON] = [], notes: [String] = [], extra: OrderedJSON.Members = []
    ) -> OrderedJSON {
        let members: OrderedJSON.Members = [
            ("source", .string(source)), ("type", .string(type)), ("envelope", .null), ("status", .string(status)),
            ("reason", .string(reason)), ("verified", .bool(verified)), ("xcode", .bool(false)),
            ("summary", summary.map { .string($0) } ?? .null), ("access", .null), ("checkTime", .null),
            ("validNow", .null), ("checks", .array(checks)), ("notes", .array(notes.map { .string($0) })),
            ("header", .null),
            ("chain", .array([])), ("payload", .null), ("display", .null), ("unknownFields", .array([])),
            ("unknownValues", .array([])), ("nested", .object(.init(distinct: []))),
        ]
        return .object(.init(distinct: members + extra))
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
