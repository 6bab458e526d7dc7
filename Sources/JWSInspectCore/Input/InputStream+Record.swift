extension InputStream {
    /// One record of the input, read but not yet scanned. Scanning is a pure function of
    /// the record (`scan()`), so it can run on any thread, in parallel with others.
    public struct Record: Sendable {
        enum Content: Sendable {
            /// A line over the record limit (not kept), and its length.
            case overLimit(Int)
            /// A JSON document over the record limit (not kept), and its last line.
            case documentOverLimit(lastLine: Int)
            /// One line of text.
            case text([UInt8])
            /// A JSON-looking record: the bytes, and each line's number and range in them.
            case json([UInt8], lines: [(number: Int, start: Int, end: Int)], whole: Bool)
            /// A whole input that is a raw receipt (DER or BER).
            case receipt([UInt8])
            /// A raw receipt over `CMSSignedData.maximumSize` (not kept), and its size.
            case receiptOverLimit(Int)
            /// A receipt in base64 text, its wrapped lines joined by newlines.
            case receiptText([UInt8])
        }

        let origin: String
        let numberLines: Bool
        let number: Int
        let content: Content
        /// The record limit it was read with.
        let limit: Int

        /// The record's size in bytes (what it holds in memory).
        public var size: Int {
            switch content {
            case .overLimit, .documentOverLimit, .receiptOverLimit: 0
            case .text(let bytes), .json(let bytes, _, _), .receipt(let bytes), .receiptText(let bytes): bytes.count
            }
        }

        /// The JWS found in the record, and why it is not JSON when it looked like JSON.
        public func scan() -> (items: [InputScanner.Item], jsonProblem: String?) {
            let source = numberLines ? "\(origin):\(number)" : origin
            var limit: String { "the \(InputStream.describe(size: self.limit)) limit for one record" }
            switch content {
            case .overLimit(let length):
                return (
                    [
                        .malformed(
                            source: "\(origin):\(number)", reason: "line \(number) is \(length) bytes, over \(limit)")
                    ], nil
                )
            case .documentOverLimit(let last):
                return (
                    [
                        .malformed(
                            source: "\(origin):\(number)",
                            reason:
                                "the JSON document on lines \(number) to \(last) is over \(limit); nothing in it was read"
                        )
                    ], nil
                )
            case .text(let bytes):
                return (InputScanner.textTokens(bytes[...], source: source), nil)
            case .receipt(let bytes):
                return ([.receipt(source: source, der: bytes)], nil)
            case .receiptOverLimit(let size):
                let error = CMSSignedData.ParseError.tooLarge(size: size, limit: CMSSignedData.maximumSize)
                return ([.malformed(source: source, reason: error.description)], nil)
            case .receiptText(let text):
                return ([InputScanner.receipt(base64: text[...], source: source)], nil)
            case .json(let record, let lines, let whole):
                do {
                    let document = try JSONValue.decode(record)
                    let prefix = whole ? "\(origin):" : numberLines ? "\(origin):\(number):" : "\(origin):"
                    return (InputScanner.jsonTokens(document, origin: prefix), nil)
                } catch let duplicate as DuplicateMember {
                    // Read two ways (Foundation keeps the first, others the last): refused whole,
                    // neither copy verified.
                    let line = lines.last { $0.start <= duplicate.offset }?.number ?? number
                    let reason = "the JSON document names member \(duplicate.quotedName) twice at line \(line)"
                    return (
                        [.malformed(source: whole || !numberLines ? origin : "\(origin):\(number)", reason: reason)],
                        nil
                    )
                } catch {
                    // Not JSON after all (a log line that starts with a brace): scan its lines as text.
                    let items = lines.flatMap { number, start, end in
                        InputScanner.textTokens(
                            record[start..<end], source: numberLines ? "\(origin):\(number)" : origin)
                    }
                    return (items, JSONValue.describeFailure(error, bytes: record))
                }
            }
        }
    }
}
