internal import AppStoreServerAPI
internal import FoundationEssentials
internal import JWSInspectCore

/// `--redact`: every customer identifier in the output (a transaction's IDs, the app account
/// token, the app transaction ID, device verification, a receipt's, the ID fetch asked about)
/// is replaced by a salted hash of it, `redacted-` and 12 hexadecimal digits, the same for the
/// same value throughout a run (and across runs given the same `JWSINSPECT_REDACT_SALT`), so
/// that output can be pasted into a ticket. A JWS nested in a payload carries them encoded:
/// it is replaced whole (`redacted-jws-…`). Values are found in the signed data itself (every
/// depth of every payload, nested ones included) and in the options; the text is then scanned
/// once, word by word, each word looked up.
struct Redaction: Sendable {
    /// The members whose values identify a customer, a purchase or a device, by Apple's names
    /// (JWS payloads, API answers), verifyReceipt's (receipts) and StoreKit 1's (a transaction
    /// receipt's `purchase-info`).
    static let identifierKeys: Set<String> = [
        "transactionId", "originalTransactionId", "webOrderLineItemId", "appAccountToken", "appTransactionId",
        "deviceVerification", "deviceVerificationNonce", "transaction_id", "original_transaction_id",
        "web_order_line_item_id", "app_account_token", "opaque_value", "sha1_hash", "transaction-id",
        "original-transaction-id", "web-order-line-item-id", "unique-identifier", "unique-vendor-identifier",
    ]
    /// The environment variable whose value salts the hashes (a random salt for each run without it).
    static let saltVariable = "JWSINSPECT_REDACT_SALT"

    private let salt: [UInt8]
    /// Values from the options (fetch's ID, expectations), redacted wherever they appear.
    private let known: Set<String>

    init(salt: String, known: [String] = []) {
        self.salt = Array(salt.utf8)
        self.known = Set(known.filter { !$0.isEmpty })
    }

    /// The run's redaction: salted by `JWSINSPECT_REDACT_SALT` when set, else by a salt of this
    /// run alone (and a warning says so, once, when `warn` is given).
    static func make(environment: (String) -> String?, known: [String], warn: (String) -> Void) -> Redaction {
        if let salt = environment(saltVariable), !salt.isEmpty { return Redaction(salt: salt, known: known) }
        warn(
            "note: --redact hashes with a salt of this run only: set \(saltVariable) to get the same hashes in "
                + "every run")
        return Redaction(salt: UUID().uuidString, known: known)
    }

    /// What `value` is replaced by.
    func token(for value: String) -> String {
        let hex = Array(Digest.sha256(salt + [0] + Array(value.utf8)).prefix(6)).hexString()
        return (Self.isCompactJWS(value) ? "redacted-jws-" : "redacted-") + hex
    }

    // MARK: Finding the values

    /// The identifiers of an inspection, its nested inspections' and the JWS nested in it.
    func values(of inspection: Inspection) -> Set<String> {
        var found: Set<String> = []
        if let payload = inspection.envelope?.sections.payload.object {
            Self.collect(.object(payload), key: nil, into: &found)
        }
        for item in inspection.nested { found.formUnion(values(of: item.inspection)) }
        return found
    }

    /// The identifiers of an API answer's unsigned fields.
    func values(of page: FetchedPage) -> Set<String> {
        var found: Set<String> = []
        func walk(_ name: String, _ value: ResponseSummary.Value) {
            switch value {
            case .scalar(let scalar): Self.collect(scalar, key: name, into: &found)
            case .records(let records): for record in records { for field in record { walk(field.name, field.value) } }
            }
        }
        for field in page.summary.fields { walk(field.name, field.value) }
        return found
    }

    /// Every identifier member's value under `value` (bounded: a payload is), and every string
    /// that is a compact JWS.
    private static func collect(_ value: JSONValue, key: String?, into found: inout Set<String>) {
        switch value {
        case .string(let text):
            if let key, identifierKeys.contains(key) || isCompactJWS(text) { found.insert(text) }
        case .integer(let number):
            if let key, identifierKeys.contains(key) { found.insert(String(number)) }
        case .object(let members):
            for (name, member) in members { collect(member, key: name, into: &found) }
        case .array(let elements):
            for element in elements { collect(element, key: key, into: &found) }
        case .double, .bool, .null:
            return
        }
    }

    /// Three base64url segments: what a nested token looks like.
    private static func isCompactJWS(_ text: String) -> Bool {
        var dots = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                dots += 1
            } else if !isWordByte(byte) {
                return false
            }
        }
        return dots == 2 && text.utf8.count > 32
    }

    // MARK: Replacing them

    /// `text` with every value of `values` and of the options replaced by its token. One pass:
    /// the text is cut into words (letters, digits, `+ / = _ - .`), each looked up whole, then,
    /// when it is not a value, each of its parts between `/` and `.` (a URL's last segment, an
    /// ID at a sentence's end).
    func redact(_ text: String, also values: Set<String> = []) -> String {
        if known.isEmpty, values.isEmpty { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard Self.isWordByte(bytes[index]) || bytes[index] == UInt8(ascii: ".") else {
                out.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, Self.isWordByte(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
            // A number that is a JSON member's value (a receipt's web_order_line_item_id) becomes
            // a string: its token is not a number.
            let member = out.last(where: { $0 != UInt8(ascii: " ") }) == UInt8(ascii: ":")
            if member, bytes[index..<end].allSatisfy({ (0x30...0x39).contains($0) }),
                let token = replacement(bytes[index..<end], values: values)
            {
                out.append(contentsOf: "\"\(token)\"".utf8)
            } else {
                append(bytes[index..<end], values: values, to: &out)
            }
            index = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One word: its token when it is a value, else its parts, each a token when it is one.
    private func append(_ word: ArraySlice<UInt8>, values: Set<String>, to out: inout [UInt8]) {
        if let token = replacement(word, values: values) { return out.append(contentsOf: token.utf8) }
        var start = word.startIndex
        for index in word.indices where word[index] == UInt8(ascii: "/") || word[index] == UInt8(ascii: ".") {
            appendPart(word[start..<index], values: values, to: &out)
            out.append(word[index])
            start = index + 1
        }
        appendPart(word[start..<word.endIndex], values: values, to: &out)
    }

    private func appendPart(_ part: ArraySlice<UInt8>, values: Set<String>, to out: inout [UInt8]) {
        out.append(contentsOf: replacement(part, values: values).map { Array($0.utf8) } ?? Array(part))
    }

    private func replacement(_ word: ArraySlice<UInt8>, values: Set<String>) -> String? {
        guard !word.isEmpty else { return nil }
        let text = String(decoding: word, as: UTF8.self)
        return values.contains(text) || known.contains(text) ? token(for: text) : nil
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}

/// A renderer whose every result, record and line has the identifiers it holds redacted
/// (`--redact`): the format's own renderer does the rest.
struct RedactingOutput: ResultRenderer {
    let inner: any ResultRenderer
    let redaction: Redaction

    func result(_ inspection: Inspection) -> String? {
        inner.result(inspection).map { redaction.redact($0, also: redaction.values(of: inspection)) }
    }

    func rendered(_ inspection: Inspection) -> RenderedResult? {
        guard let rendered = inner.rendered(inspection) else { return nil }
        let text: String
        switch rendered {
        case .text(let found): text = found
        case .bytes(let bytes): text = String(decoding: bytes, as: UTF8.self)
        }
        return .text(redaction.redact(text, also: redaction.values(of: inspection)))
    }

    func unreadable(source: String, reason: String) -> String? {
        inner.unreadable(source: source, reason: reason).map { redaction.redact($0) }
    }

    func answer(_ page: FetchedPage) -> String? {
        inner.answer(page).map { redaction.redact($0, also: redaction.values(of: page)) }
    }

    func unanswered(_ request: UnansweredRequest) -> String? {
        inner.unanswered(request).map { redaction.redact($0) }
    }

    func summary(total: Int, counts: [(status: String, count: Int)]) -> String {
        inner.summary(total: total, counts: counts)
    }

    func single(text: () -> String, record: () -> OrderedJSON) -> String {
        redaction.redact(inner.single(text: text, record: record))
    }

    func report(
        table: (TableRenderer) -> String, brief: (TableRenderer) -> String, records: () -> [OrderedJSON.Object]
    ) -> String {
        redaction.redact(inner.report(table: table, brief: brief, records: records))
    }

    var separator: String { inner.separator }
}
