extension ExactInput {
    /// What the input was taken for, as a refusal names it.
    package enum Form: Sendable, Equatable {
        case jws
        case receipt
        case transactionReceipt

        var name: String {
            switch self {
            case .jws: "JWS"
            case .receipt: "receipt"
            case .transactionReceipt: "transaction receipt"
            }
        }

        /// "2 JWS", "2 receipts".
        func counted(_ count: Int) -> String {
            switch self {
            case .jws: "\(count) JWS"
            case .receipt: "\(count) receipts"
            case .transactionReceipt: "\(count) transaction receipts"
            }
        }
    }

    /// Why an input is not exactly one JWS, webhook body or receipt. Its description is a
    /// fragment that starts "the input" ("the input holds 2 JWS"), for a caller to put in its
    /// own words of what to do instead.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Nothing but whitespace, or nothing at all.
        case empty
        /// More bytes than the limit (in bytes).
        case overLimit(Int)
        /// Nothing that looks like a JWS, a webhook body or a receipt.
        case nothingRecognised
        /// Nothing that looks like a JWS (in a webhook body's `signedPayload`).
        case noJWS
        /// More than one (how many; JWS glued together are counted apart).
        case several(Int, Form)
        /// The item with text before or after it (excerpts; empty for whitespace, nil for none).
        case surrounded(Form, before: String?, after: String?)
        /// One item broken by whitespace (wrapped over lines): into how many pieces.
        case wrapped(Form, pieces: Int)
        /// A receipt's DER or BER, then more bytes than whitespace (how many).
        case bytesAfterReceipt(Int)
        /// JSON-looking input that is not one strict JSON text, and why.
        case notJSON(String)
        /// A JSON array.
        case jsonArray
        /// A JSON object that names a member twice.
        case duplicateMember(DuplicateMember)
        /// A JSON object without `signedPayload` (the members it has).
        case noSignedPayload(Names)
        /// A JSON object with members besides `signedPayload` (those).
        case otherMembers(Names)
        /// A `signedPayload` that is not a string (what it is: "a number").
        case notAString(String)
        /// What is wrong with a webhook body's `signedPayload`.
        indirect case inSignedPayload(Refusal)

        package var description: String {
            if case .inSignedPayload(let refusal) = self { return "the input's \(signedPayload) \(refusal.predicate)" }
            return "the input \(predicate)"
        }

        /// What is said of the input (or of its `signedPayload`).
        private var predicate: String {
            switch self {
            case .empty: "is empty"
            case .overLimit(let limit): "is over the \(InputStream.describe(size: limit)) limit for one record"
            case .nothingRecognised: "holds no JWS, webhook body or receipt"
            case .noJWS: "holds no JWS"
            case .several(let count, let form): "holds \(form.counted(count))"
            case .surrounded(let form, let before?, let after?):
                "has text before and after the \(form.name) (\(Self.quoted(before)) and \(Self.quoted(after)))"
            case .surrounded(let form, let before?, nil): "has text before the \(form.name) (\(Self.quoted(before)))"
            case .surrounded(let form, _, let after): "has text after the \(form.name) (\(Self.quoted(after ?? "")))"
            case .wrapped(let form, let pieces):
                "is one \(form.name) broken into \(pieces) pieces by whitespace (wrapped)"
            case .bytesAfterReceipt(let count): "has \(count) bytes after the receipt's PKCS#7 container"
            case .notJSON(let problem): "is not one JSON text: \(problem)"
            case .jsonArray: "is a JSON array, not a webhook body {\"\(signedPayload)\":\"…\"}"
            case .duplicateMember(let duplicate): "names \(duplicate)"
            case .noSignedPayload(let names):
                names.count == 0
                    ? "is an empty JSON object, without \(signedPayload)"
                    : "is a JSON object without \(signedPayload) (its members: \(names))"
            case .otherMembers(let names): "is a JSON object with members besides \(signedPayload): \(names)"
            case .notAString(let kind): "is \(kind), not a string holding a JWS"
            case .inSignedPayload(let refusal): refusal.predicate
            }
        }

        /// An excerpt as a refusal quotes it; "whitespace" when that is all it is.
        private static func quoted(_ excerpt: String) -> String {
            excerpt.isEmpty ? "whitespace" : "'\(excerpt)'"
        }

        /// Text around an item as a refusal keeps it: nil for none, else without the whitespace
        /// at its ends, at most about `Excerpt.limit` characters (made from a bounded prefix of
        /// the bytes, so its cost does not grow with the input).
        static func excerpt(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
            guard !bytes.isEmpty else { return nil }
            var start = bytes.startIndex
            var end = bytes.endIndex
            while start < end, InputScanner.isWhitespace(bytes[start]) { start += 1 }
            while end > start, InputScanner.isWhitespace(bytes[end - 1]) { end -= 1 }
            return Excerpt.of(String(decoding: bytes[start..<end].prefix(4 * Excerpt.limit), as: UTF8.self))
        }

        /// Member names as a refusal shows them: the first few in code-point order (found in one
        /// pass, whatever their number), quoted and shortened, and how many more there are.
        package struct Names: Sendable, Equatable, CustomStringConvertible {
            /// The names shown, quoted and shortened.
            package let shown: [String]
            /// How many names there are in all.
            package let count: Int

            static let shownCount = 3

            init(_ names: some Sequence<String>) {
                var first: [String] = []
                var count = 0
                for name in names {
                    count += 1
                    let bytes = Array(name.utf8)
                    let index = first.firstIndex { bytes.lexicographicallyPrecedes($0.utf8) } ?? first.count
                    guard index < Self.shownCount else { continue }
                    first.insert(name, at: index)
                    if first.count > Self.shownCount { first.removeLast() }
                }
                shown = first.map {
                    "\"\(Excerpt.of(String(decoding: $0.utf8.prefix(4 * Excerpt.limit), as: UTF8.self)))\""
                }
                self.count = count
            }

            /// `"a", "b", "c" and 2 more`.
            package var description: String {
                let more = count - shown.count
                return shown.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
            }
        }
    }
}
