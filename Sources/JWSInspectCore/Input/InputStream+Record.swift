extension InputStream {
    /// One record of the input, read but not yet scanned. Scanning is a pure function of
    /// the record (`scan()`), so it can run on any thread, in parallel with others.
    package struct Record: Sendable {
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
            /// A StoreKit 1 transaction receipt (or another property list) in base64 text, its
            /// wrapped lines joined by newlines.
            case transactionReceiptText([UInt8])
        }

        let origin: String
        let numberLines: Bool
        let number: Int
        let content: Content
        /// The record limit it was read with.
        let limit: Int

        /// The record's size in bytes (what it holds in memory).
        package var size: Int {
            switch content {
            case .overLimit, .documentOverLimit, .receiptOverLimit: 0
            case .text(let bytes), .json(let bytes, _, _), .receipt(let bytes), .receiptText(let bytes),
                .transactionReceiptText(let bytes):
                bytes.count
            }
        }

        /// The memory a JSON record's tree may take (`JSONValue.TreeCost`): four times the record
        /// limit, so that with the record itself and the reader's buffer a record of 64 MiB
        /// stays within 8 times its size; never under 64 MiB, so a small limit (tests) refuses
        /// no small document.
        package static func treeBudget(limit: Int) -> Int { max(4 * limit, 64 << 20) }

        /// The JWS found in the record, and why it is not JSON when it looked like JSON.
        package func scan() -> (items: [InputScanner.Item], jsonProblem: String?) {
            var items: [InputScanner.Item] = []
            let problem = scan { items.append($0) }
            return (items, problem)
        }

        /// The JWS found in the record, each handed to `emit` as it is found (a 64 MiB line of
        /// tokens is never held as a list of them), and why it is not JSON when it looked like JSON.
        package func scan(emit: (InputScanner.Item) -> Void) -> String? {
            let source = numberLines ? "\(origin):\(number)" : origin
            var limit: String { "the \(InputStream.describe(size: self.limit)) limit for one record" }
            switch content {
            case .overLimit(let length):
                emit(
                    .malformed(
                        source: "\(origin):\(number)", reason: "line \(number) is \(length) bytes, over \(limit)"))
            case .documentOverLimit(let last):
                emit(
                    .malformed(
                        source: "\(origin):\(number)",
                        reason:
                            "the JSON document on lines \(number) to \(last) is over \(limit); nothing in it was read"))
            case .text(let bytes):
                bytes.withUnsafeBufferPointer { InputScanner.textTokens($0, source: { source }, emit: emit) }
            case .receipt(let bytes):
                emit(.receipt(source: source, der: bytes))
            case .receiptOverLimit(let size):
                let error = CMSSignedData.ParseError.tooLarge(size: size, limit: CMSSignedData.maximumSize)
                emit(.malformed(source: source, reason: error.description))
            case .receiptText(let text):
                emit(InputScanner.receipt(base64: text[...], source: source))
            case .transactionReceiptText(let text):
                emit(TransactionReceiptText.item(base64: text, source: source))
            case .json(let record, let lines, let whole):
                do {
                    let document = try JSONValue.decode(record, budget: Self.treeBudget(limit: self.limit))
                    let prefix = whole ? "\(origin):" : numberLines ? "\(origin):\(number):" : "\(origin):"
                    if RealtimeResponseModel.recognises(document) {
                        // The document is the item: its offer's JWS are verified inside it.
                        emit(
                            .realtimeResponse(
                                source: whole || !numberLines ? origin : "\(origin):\(number)", document: record))
                    } else {
                        InputScanner.jsonTokens(document, origin: prefix, emit: emit)
                    }
                } catch let refusal as any JSONValue.CostRefusal {
                    // Too costly to read (memory, or time): refused whole, nothing in it verified.
                    let last = lines.last?.number ?? number
                    let place = last == number ? "on line \(number)" : "on lines \(number) to \(last)"
                    emit(
                        .malformed(
                            source: whole || !numberLines ? origin : "\(origin):\(number)",
                            reason: "the JSON document \(place) is refused: \(refusal)"))
                } catch let duplicate as DuplicateMember {
                    // Read two ways (Foundation keeps the first, others the last): refused whole,
                    // neither copy verified.
                    let line = lines.last { $0.start <= duplicate.offset }?.number ?? number
                    let reason = "the JSON document names member \(duplicate.quotedName) twice at line \(line)"
                    emit(.malformed(source: whole || !numberLines ? origin : "\(origin):\(number)", reason: reason))
                } catch {
                    // Not JSON after all (a log line that starts with a brace): scan its lines as text.
                    record.withUnsafeBufferPointer { buffer in
                        for (number, start, end) in lines {
                            InputScanner.textTokens(
                                UnsafeBufferPointer(rebasing: buffer[start..<end]),
                                source: { numberLines ? "\(origin):\(number)" : origin }, emit: emit)
                        }
                    }
                    return JSONValue.describeFailure(error, bytes: record)
                }
            }
            return nil
        }
    }
}
