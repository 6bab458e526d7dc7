internal import JWSInspectCore

/// The record `sign` (a JWS kind) and `mint` (a token kind) write with `--format json|jsonl`:
/// the token's type as inspect names it, the JWS, and its header and payload as signed.
enum TokenRecord {
    static func record(type: String, jws: String, header: OrderedJSON, payload: OrderedJSON) -> OrderedJSON {
        .object(
            .init(
                distinct: RecordType.token.head + [
                    ("type", .string(type)), ("jws", .string(jws)), ("header", header), ("payload", payload),
                ]))
    }

    /// A JWS this program just signed: its header read back from its first segment.
    static func record(type: String, jws: String, payload: OrderedJSON) -> OrderedJSON {
        let encoded = jws.utf8.prefix { $0 != UInt8(ascii: ".") }
        let header = (try? Base64URL.decode(encoded)).map(OrderedJSON.raw) ?? .null
        return record(type: type, jws: jws, header: header, payload: payload)
    }
}
