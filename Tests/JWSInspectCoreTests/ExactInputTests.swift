import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// `ExactInput` (`--exact`): exactly one JWS, webhook body or receipt with only whitespace
/// around it is the item; every other input is refused, each kind with its own reason.
@Suite struct ExactInputTests {
    static let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
    static let other = Fixtures.pki.sign(payloadJSON: TestPayloads.renewalInfo())
    /// A receipt with a definite length (`30 82 …`) and one with BER's indefinite length (`30 80`, Xcode's).
    static let receipt = (try? Fixtures.bytes("Samples/receipt-production-2024.der")) ?? []
    static let xcodeReceipt =
        (try? Fixtures.bytes("Tests/Vectors/receipts/01-xcode-apple-backyardbirds-empty.der")) ?? []
    static var base64: String { Data(receipt).base64EncodedString() }

    static func item(_ text: String, limit: Int = InputStream.maximumRecordSize) -> Result<
        InputScanner.Item, ExactInput.Refusal
    > {
        item(Array(text.utf8), limit: limit)
    }

    static func item(_ bytes: [UInt8], limit: Int = InputStream.maximumRecordSize) -> Result<
        InputScanner.Item, ExactInput.Refusal
    > {
        ExactInput.item(in: bytes, source: "in", limit: limit)
    }

    // MARK: Accepted

    @Test(arguments: ["", "\n", "\r\n", " \t\r\n\r\n  "])
    func aTokenWithWhitespaceAroundIsTheToken(_ space: String) throws {
        #expect(Self.item(space + Self.token + space) == .success(.token(source: "in", token: Self.token)))
    }

    @Test func aWebhookBodyIsItsSignedPayloadNamedByTheMember() {
        let expected = Result<InputScanner.Item, ExactInput.Refusal>.success(
            .token(source: "in: signedPayload", token: Self.token))
        #expect(Self.item(#"{"signedPayload":"\#(Self.token)"}"#) == expected)
        // Pretty-printed, CRLF line ends, whitespace around: still strict JSON with one member.
        #expect(Self.item("\r\n{\r\n  \"signedPayload\" : \"\(Self.token)\"\r\n}\r\n") == expected)
    }

    @Test func aRawReceiptIsTheReceiptWithoutTheWhitespaceAfterIt() throws {
        #expect(!Self.receipt.isEmpty && !Self.xcodeReceipt.isEmpty)
        for der in [Self.receipt, Self.xcodeReceipt] {
            let expected = Result<InputScanner.Item, ExactInput.Refusal>.success(.receipt(source: "in", der: der))
            #expect(Self.item(der) == expected)
            #expect(Self.item(der + Array("\r\n".utf8)) == expected)
        }
    }

    @Test func aBase64ReceiptOnOneLineIsTheReceipt() {
        let expected = Result<InputScanner.Item, ExactInput.Refusal>.success(.receipt(source: "in", der: Self.receipt))
        #expect(Self.item(Self.base64) == expected)
        #expect(Self.item("  " + Self.base64 + "\r\n") == expected)
    }

    /// The one thing an input holds is the item even when it cannot be what it looks like: a
    /// scan's reason says what is wrong with it, as without `--exact`.
    @Test func theOneItemsOwnDefectsAreItsOwn() throws {
        let parts = Self.token.split(separator: ".")
        let fourSegments = "\(parts[0]).\(parts[1]).\(parts[2]).\(parts[2])"
        guard case .success(.malformed(_, let reason)) = Self.item(fourSegments) else {
            Issue.record("not malformed: \(Self.item(fourSegments))")
            return
        }
        #expect(reason.contains("has 4 segments"))
        // Base64 that starts as a receipt does, one character too many to be base64.
        let notBase64 = Data(Self.receipt.prefix(48)).base64EncodedString() + "A"
        guard case .success(.malformed(_, let base64Reason)) = Self.item(notBase64) else {
            Issue.record("base64 that starts as a receipt does is not malformed: \(Self.item(notBase64))")
            return
        }
        #expect(base64Reason == "not a receipt: not standard base64 text")
        // Dot-separated base64url that decodes to nothing is a token: decoding says why.
        #expect(Self.item("a.b.c") == .success(.token(source: "in", token: "a.b.c")))
    }

    @Test func theLimitIsInclusive() {
        let bytes = Array(Self.token.utf8)
        #expect(Self.item(bytes, limit: bytes.count) == .success(.token(source: "in", token: Self.token)))
        #expect(Self.item(bytes, limit: bytes.count - 1) == .failure(.overLimit(bytes.count - 1)))
    }

    /// `InputStream.wholeInput`, what `--exact` reads: the input to its end, or up to one byte
    /// past the limit, when reading stops.
    @Test func aStreamIsReadWholeOrToOnePastTheLimit() {
        final class Reads: @unchecked Sendable {
            var count = 0
        }
        func stream(_ reads: Reads) -> JWSInspectCore.InputStream {
            JWSInspectCore.InputStream(origin: "in") { buffer in
                guard reads.count < 10 else { return (0, nil) }
                reads.count += 1
                buffer.append(contentsOf: Array("abcdefghij".utf8))
                return (10, nil)
            }
        }
        let all = Reads()
        var whole = stream(all)
        #expect(whole.wholeInput(maximum: 1_000) == Array(String(repeating: "abcdefghij", count: 10).utf8))
        let some = Reads()
        var bounded = stream(some)
        #expect(bounded.wholeInput(maximum: 25) == Array("abcdefghijabcdefghijabcdef".utf8))
        #expect(some.count == 3)
    }

    // MARK: Refused

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: String
        let refusal: ExactInput.Refusal
        var testDescription: String { name }
    }

    static var refusals: [Case] {
        let token = Self.token
        let folded = stride(from: 0, to: token.count, by: 76).map { offset -> String in
            let start = token.index(token.startIndex, offsetBy: offset)
            return String(
                token[start..<(token.index(start, offsetBy: 76, limitedBy: token.endIndex) ?? token.endIndex)])
        }
        let base64Lines = stride(from: 0, to: base64.count, by: 64).map { offset -> String in
            let start = base64.index(base64.startIndex, offsetBy: offset)
            return String(
                base64[start..<(base64.index(start, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex)])
        }
        return [
            Case(name: "empty", input: "", refusal: .empty),
            Case(name: "whitespace only", input: " \r\n\t\r\n", refusal: .empty),
            Case(name: "no JWS", input: "hello world", refusal: .nothingRecognised),
            Case(name: "a word", input: "hello", refusal: .nothingRecognised),
            Case(name: "two tokens on a line", input: "\(token) \(Self.other)", refusal: .several(2, .jws)),
            Case(name: "two tokens on two lines", input: "\(token)\r\n\(Self.other)\r\n", refusal: .several(2, .jws)),
            Case(name: "two tokens glued", input: token + Self.other, refusal: .several(2, .jws)),
            Case(name: "two tokens among text", input: "a \(token) b \(token) c", refusal: .several(2, .jws)),
            Case(
                name: "leading junk", input: "junk \(token)", refusal: .surrounded(.jws, before: "junk", after: nil)),
            Case(
                name: "Bearer", input: "Bearer \(token)", refusal: .surrounded(.jws, before: "Bearer", after: nil)),
            Case(
                name: "trailing junk", input: "\(token) junk\n", refusal: .surrounded(.jws, before: nil, after: "junk")),
            Case(name: "a full stop", input: "\(token).", refusal: .surrounded(.jws, before: nil, after: ".")),
            Case(
                name: "junk around", input: "junk \(token) junk",
                refusal: .surrounded(.jws, before: "junk", after: "junk")),
            Case(name: "quoted", input: "\"\(token)\"", refusal: .surrounded(.jws, before: "\"", after: "\"")),
            Case(
                name: "a JSON string", input: "\"\(token)\",", refusal: .surrounded(.jws, before: "\"", after: "\",")),
            Case(
                name: "wrapped at 76 columns", input: folded.joined(separator: "\n"),
                refusal: .wrapped(.jws, pieces: folded.count)),
            Case(
                name: "a webhook body with another member",
                input: #"{"signedPayload":"\#(token)","data":{}}"#, refusal: .otherMembers(.init(["data"]))),
            Case(
                name: "a webhook body with several other members",
                input: #"{"signedPayload":"\#(token)","z":1,"b":2,"a":3,"c":4}"#,
                refusal: .otherMembers(.init(["a", "b", "c", "z"]))),
            Case(
                name: "a JSON object without signedPayload", input: #"{"signedTransactionInfo":"\#(token)"}"#,
                refusal: .noSignedPayload(.init(["signedTransactionInfo"]))),
            Case(name: "an empty JSON object", input: "{}", refusal: .noSignedPayload(.init([String]()))),
            Case(name: "a JSON array", input: #"["\#(token)"]"#, refusal: .jsonArray),
            Case(
                name: "a member named twice", input: #"{"signedPayload":"\#(token)","signedPayload":"\#(token)"}"#,
                refusal: .duplicateMember(DuplicateMember(name: "signedPayload", offset: 17 + token.utf8.count + 3))
            ),
            Case(
                name: "signedPayload not a string", input: #"{"signedPayload":1}"#,
                refusal: .inSignedPayload(.notAString("a number"))),
            Case(
                name: "signedPayload empty", input: #"{"signedPayload":""}"#, refusal: .inSignedPayload(.empty)),
            Case(
                name: "signedPayload with whitespace", input: #"{"signedPayload":" \#(token)"}"#,
                refusal: .inSignedPayload(.surrounded(.jws, before: "", after: nil))),
            Case(
                name: "signedPayload with two tokens", input: #"{"signedPayload":"\#(token) \#(token)"}"#,
                refusal: .inSignedPayload(.several(2, .jws))),
            Case(
                name: "signedPayload with no JWS", input: #"{"signedPayload":"hello"}"#,
                refusal: .inSignedPayload(.noJWS)),
            Case(
                name: "a base64 receipt with junk", input: "\(base64) junk",
                refusal: .surrounded(.receipt, before: nil, after: "junk")),
            Case(
                name: "a base64 receipt with junk glued", input: "\(base64)\",",
                refusal: .surrounded(.receipt, before: nil, after: "\",")),
            Case(
                name: "a base64 receipt and a token", input: "\(base64)\n\(token)",
                refusal: .surrounded(.receipt, before: nil, after: Excerpt.of(token))),
            Case(name: "two base64 receipts", input: "\(base64)\n\(base64)\n", refusal: .several(2, .receipt)),
            Case(
                name: "a base64 receipt wrapped", input: base64Lines.joined(separator: "\r\n"),
                refusal: .wrapped(.receipt, pieces: base64Lines.count)),
        ]
    }

    @Test(arguments: refusals)
    func refused(_ refused: Case) {
        #expect(Self.item(refused.input) == .failure(refused.refusal))
    }

    @Test func jsonThatIsNotOneJSONTextIsRefusedWithTheParsersReason() throws {
        let body = #"{"signedPayload":"\#(Self.token)"}"#
        for input in [body + " junk", body + "\n" + body, body + ",", #"{"signedPayload":"\#(Self.token)",}"#] {
            guard case .failure(.notJSON(let problem)) = Self.item(input) else {
                Issue.record("not refused as JSON: \(input.suffix(40)): \(Self.item(input))")
                continue
            }
            #expect(problem.contains("at byte"), "\(problem)")
        }
    }

    @Test func rawReceiptBytesAfterTheContainerAreRefused() {
        #expect(Self.item(Self.receipt + Array(" junk".utf8)) == .failure(.bytesAfterReceipt(5)))
        #expect(Self.item(Self.receipt + Self.receipt) == .failure(.bytesAfterReceipt(Self.receipt.count)))
    }

    // MARK: Wording

    @Test func refusalsSayWhatIsWrongWithTheInput() {
        let cases: [(ExactInput.Refusal, String)] = [
            (.empty, "the input is empty"),
            (.overLimit(64 << 20), "the input is over the 64 MiB limit for one record"),
            (.nothingRecognised, "the input holds no JWS, webhook body or receipt"),
            (.several(2, .jws), "the input holds 2 JWS"),
            (.several(3, .receipt), "the input holds 3 receipts"),
            (.surrounded(.jws, before: "junk", after: nil), "the input has text before the JWS ('junk')"),
            (.surrounded(.jws, before: nil, after: "junk"), "the input has text after the JWS ('junk')"),
            (
                .surrounded(.receipt, before: "a", after: "b"),
                "the input has text before and after the receipt ('a' and 'b')"
            ),
            (.wrapped(.jws, pieces: 3), "the input is one JWS broken into 3 pieces by whitespace (wrapped)"),
            (.bytesAfterReceipt(5), "the input has 5 bytes after the receipt's PKCS#7 container"),
            (.jsonArray, #"the input is a JSON array, not a webhook body {"signedPayload":"…"}"#),
            (
                .otherMembers(.init(["z", "b", "a", "c"])),
                #"the input is a JSON object with members besides signedPayload: "a", "b", "c" and 1 more"#
            ),
            (.noSignedPayload(.init([String]())), "the input is an empty JSON object, without signedPayload"),
            (
                .inSignedPayload(.surrounded(.jws, before: "", after: nil)),
                "the input's signedPayload has text before the JWS (whitespace)"
            ),
            (
                .inSignedPayload(.notAString("a number")),
                "the input's signedPayload is a number, not a string holding a JWS"
            ),
        ]
        for (refusal, wording) in cases {
            #expect(refusal.description == wording)
        }
    }

    @Test func excerptsAreBoundedAndMemberNamesShortened() {
        let junk = String(repeating: "x", count: 1 << 20)
        guard case .failure(.surrounded(_, let before?, nil)) = Self.item(junk + " " + Self.token) else {
            Issue.record("not refused for the text before")
            return
        }
        #expect(before.count == Excerpt.limit)
        let names = ExactInput.Refusal.Names([junk])
        #expect(names.shown[0].count == Excerpt.limit + 2)
    }

    /// Every step is linear: a megabyte of what each step reads at its slowest (runs of JWS
    /// characters that open like a header, words, members, base64 words) ends well inside the
    /// time limit (generous: a sanitizer or a busy machine slows it tenfold), where a quadratic
    /// step would take hours.
    @Test(.timeLimit(.minutes(10))) func largeInputsAreReadInLinearTime() {
        let header = "eyJhbGciOiJFUzI1NiJ9"
        let candidates = String(repeating: header + ". ", count: 50_000)
        #expect(Self.item(candidates) == .failure(.several(50_000, .jws)))
        let words = String(repeating: "a ", count: 500_000) + Self.token
        #expect(
            Self.item(words)
                == .failure(
                    .surrounded(.jws, before: String(String(repeating: "a ", count: 30).dropLast()) + "…", after: nil)))
        let members = "{" + (0..<20_000).map { "\"m\($0)\":0," }.joined() + "\"signedPayload\":\"\(Self.token)\"}"
        #expect(Self.item(members) == .failure(.otherMembers(.init((0..<20_000).map { "m\($0)" }))))
        let base64Words = Self.base64 + String(repeating: " MIIB", count: 200_000)
        let after = String(String(repeating: "MIIB ", count: 12).dropLast()) + "…"
        #expect(Self.item(base64Words) == .failure(.surrounded(.receipt, before: nil, after: after)))
    }
}
