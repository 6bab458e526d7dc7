import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

/// Receipts in every form the command reads (DER, BER, base64 wrapped or not, in a file, an
/// argument, on standard input, inside JSON), and inputs that only start like one: each a
/// one-line "malformed" error and exit 5, never a crash.
@Suite(.timeLimit(.minutes(10))) struct ReceiptCommandInputTests {
    static let receipt = ReceiptCLI.receipt
    static let base64 = Data(receipt).base64EncodedString()
    /// A JWS beside the receipt, from the EC test chain the other CLI suites use.
    static let pki = AppleShapedChain()
    static let jwsRootFile: String = {
        let url = CLI.scratch.appendingPathComponent("receipt-input-jws-root.pem")
        try? Data(pki.root.pem.utf8).write(to: url)
        return url.path
    }()

    /// Runs `arguments` (after `--root` and `--format jsonl`) and expects one valid receipt.
    static func expectOneValidReceipt(
        _ arguments: [String], stdin: String? = "", encoding: String = "DER", _ what: Comment
    ) throws {
        let result = ReceiptCLI.run(["--root", ReceiptCLI.rootFile, "--format", "jsonl"] + arguments, stdin: stdin)
        #expect(result.status == 0, what)
        #expect(result.stderr.isEmpty, what)
        let object = try ReceiptCLI.object(result)
        #expect(object["type"] as? String == "receipt", what)
        #expect(object["status"] as? String == "valid", what)
        #expect((object["header"] as? [String: Any])?["encoding"] as? String == encoding, what)
        #expect((object["payload"] as? [String: Any])?["bundle_id"] as? String == TestPayloads.bundleId, what)
    }

    @Test func derAndBERFiles() throws {
        try Self.expectOneValidReceipt([try ReceiptCLI.file(Self.receipt, named: "receipt.der")], "DER file")
        let ber = ReceiptCLI.chain.sign(
            ReceiptBuilder(receiptType: ReceiptBuilder.xcode).der(), encoding: .berIndefinite)
        #expect(ber.prefix(2) == [0x30, 0x80])
        try Self.expectOneValidReceipt([try ReceiptCLI.file(ber, named: "receipt.ber")], encoding: "BER", "BER file")

        // Xcode's shape, minted: one self-signed certificate, BER. Not named "StoreKit" as Xcode's
        // is, it is not taken for StoreKit Testing: trusted as --root, it lacks Apple's markers.
        let storeKit = StoreKitTestingSigner()
        let xcode = storeKit.sign(ReceiptBuilder(receiptType: ReceiptBuilder.xcode).der())
        #expect(xcode.prefix(2) == [0x30, 0x80])
        let root = try ReceiptCLI.file(Array(storeKit.certificate.pem.utf8), named: "storekit.pem")
        let file = try ReceiptCLI.file(xcode, named: "xcode.ber")
        let result = ReceiptCLI.run(["--root", root, "--format", "jsonl", file])
        #expect(result.status == 2)
        let object = try ReceiptCLI.object(result)
        #expect((object["header"] as? [String: Any])?["encoding"] as? String == "BER")
        #expect(object["xcode"] as? Bool == false)
        #expect(ReceiptCLI.failedChecks(object) == ["leaf-oid", "intermediate-oid"])
    }

    @Test func base64InAnArgument() throws {
        try Self.expectOneValidReceipt([Self.base64], "unwrapped")
        try Self.expectOneValidReceipt(["'\(Self.base64)'"], "quoted as pasted")
    }

    @Test(arguments: [
        ("64 columns, LF", Data.Base64EncodingOptions([.lineLength64Characters, .endLineWithLineFeed])),
        ("76 columns, CRLF", Data.Base64EncodingOptions.lineLength76Characters),
    ])
    func wrappedBase64InAFileAndOnStandardInput(_ name: String, _ options: Data.Base64EncodingOptions) throws {
        let wrapped = Data(Self.receipt).base64EncodedString(options: options) + "\n"
        #expect(wrapped.utf8.split(separator: UInt8(ascii: "\n")).count > 10)
        let file = try ReceiptCLI.file(Array(wrapped.utf8), named: "receipt.b64")
        try Self.expectOneValidReceipt([file], "\(name) in a file")
        try Self.expectOneValidReceipt([], stdin: wrapped, "\(name) on standard input")
        try Self.expectOneValidReceipt(["-"], stdin: wrapped, "\(name) on standard input, named -")
    }

    /// A verifyReceipt request body: the receipt is read from receipt-data; the shared secret
    /// in password is printed nowhere, in any format.
    @Test func verifyReceiptRequestBodyNeverShowsThePassword() throws {
        let secret = "9c1f0e2d3b4a5968778695a4b3c2d1e0"
        let body = #"{"receipt-data":"\#(Self.base64)","password":"\#(secret)","exclude-old-transactions":true}"#
        let file = try ReceiptCLI.file(Array(body.utf8), named: "verifyReceipt.json")
        try Self.expectOneValidReceipt([file], "body in a file")
        try Self.expectOneValidReceipt([], stdin: body, "body on standard input")
        for format in ["table", "json", "jsonl"] {
            for (arguments, stdin) in [([file], ""), ([], body)] {
                let result = ReceiptCLI.run(
                    ["--root", ReceiptCLI.rootFile, "--format", format] + arguments, stdin: stdin)
                #expect(result.status == 0)
                #expect(result.stdout.contains("receipt-data"), "the source names the member")
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(format)")
                #expect(!result.stdout.contains(String(secret.prefix(12))), "no excerpt of it either")
            }
        }
        // Nor when the receipt fails (the bodies of failures print more).
        let failing = ReceiptCLI.run(["--root", ReceiptCLI.rootFile, "--bundle-id", "com.example.other", file])
        #expect(failing.status == 4)
        #expect(!failing.stdout.contains(secret) && !failing.stderr.contains(secret))
    }

    /// `{ base64 -w76 receipt.der; fold -w76 token.jws; }`: the receipt's base64 has no
    /// padding, and the lines of the token's header hold standard base64 characters only; the
    /// receipt took them (one malformed result, the JWS never reported). Each is its own item,
    /// and receipts one per line too, in every format.
    @Test func aWrappedUnpaddedReceiptAndTheTokenAfterIt() throws {
        var receipt = Self.receipt
        var builder = ReceiptBuilder()
        while receipt.count % 3 != 0 {
            builder.extraAttributes.append(TestReceiptAttribute(type: 1000, value: .raw([0x5A])))
            receipt = ReceiptCLI.chain.sign(builder.der())
        }
        let jws = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        var folded = Substring(jws)
        var text = Data(receipt).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]) + "\n"
        while !folded.isEmpty {
            text += folded.prefix(76) + "\n"
            folded = folded.dropFirst(76)
        }
        let roots = ["--root", ReceiptCLI.rootFile, "--root", Self.jwsRootFile]
        for format in ["jsonl", "json", "table"] {
            let result = ReceiptCLI.run(roots + ["--format", format], stdin: text)
            #expect(result.status == 0, "\(format): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(format)")
            if format == "jsonl" {
                let objects = try result.jsonObjects()
                #expect(objects.map { $0["type"] as? String } == ["receipt", "transaction"])
                #expect(objects.map { $0["status"] as? String } == ["valid", "valid"])
            }
        }
        let one = Data(receipt).base64EncodedString()
        #expect(!one.contains("="))
        let lines = ReceiptCLI.run(
            ["--root", ReceiptCLI.rootFile, "--format", "jsonl"], stdin: "\(one)\n\(one)\n\(one)\n")
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(try lines.jsonObjects().map { $0["status"] as? String } == ["valid", "valid", "valid"])
        #expect(try lines.jsonObjects().map { $0["source"] as? String } == ["<stdin>:1", "<stdin>:2", "<stdin>:3"])
    }

    /// A JSON document holding a receipt and a JWS: both are inspected, each against its own
    /// root when both roots are given; a single `--root` applies to both.
    @Test func receiptAndJWSSideBySide() throws {
        let jws = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let document = #"{"receipt-data":"\#(Self.base64)","signedTransaction":"\#(jws)"}"#
        let file = try ReceiptCLI.file(Array(document.utf8), named: "both.json")
        let both = ReceiptCLI.run([
            "--root", ReceiptCLI.rootFile, "--root", Self.jwsRootFile, "--format", "jsonl", file,
        ])
        #expect(both.status == 0, "\(both.stdout)")
        let objects = try both.jsonObjects()
        #expect(objects.map { $0["type"] as? String } == ["receipt", "transaction"])
        #expect(objects.map { $0["envelope"] as? String } == ["pkcs7", "compactJWS"])
        #expect(objects.map { $0["status"] as? String } == ["valid", "valid"])
        #expect((objects.first?["source"] as? String)?.hasSuffix("receipt-data") == true)

        // Only the JWS's root: the receipt's chain is refused (exit 2), the JWS still valid.
        let jwsRoot = ReceiptCLI.run(["--root", Self.jwsRootFile, "--format", "jsonl", file])
        #expect(jwsRoot.status == 2)
        let statuses = try jwsRoot.jsonObjects().map { $0["status"] as? String }
        #expect(statuses == ["invalid-chain", "valid"])
        #expect(ReceiptCLI.failedChecks(try #require(try jwsRoot.jsonObjects().first)) == ["chain"])
    }

    // MARK: Inputs that only start like a receipt

    /// Runs an input that is not a readable receipt: exit 5 and one line on standard error
    /// holding `message`, in the table and JSON lines formats alike.
    static func expectMalformed(_ arguments: [String], stdin: String? = "", _ message: String) {
        for format in ["table", "jsonl"] {
            let result = ReceiptCLI.run(["--root", ReceiptCLI.rootFile, "--format", format] + arguments, stdin: stdin)
            #expect(result.status == 5, "\(format): \(result.stdout)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(format): \(result.stderr)")
            #expect(result.stderr.contains(": malformed: \(message)"), "\(format): \(result.stderr)")
        }
    }

    @Test func aReceiptsFirstBytesThenJunk() throws {
        let real = try [UInt8](Data(contentsOf: ReceiptCLI.vector("36-prod-getpure-2024-g5.der")))
        let junk = Array(real.prefix(20)) + Array("and then anything but the rest of a receipt".utf8)
        Self.expectMalformed([try ReceiptCLI.file(junk, named: "junk.der")], "not a valid receipt: not a PKCS#7")
        Self.expectMalformed([Data(junk).base64EncodedString()], "not a valid receipt: not a PKCS#7")
    }

    @Test func aTruncatedReceipt() throws {
        let real = try [UInt8](Data(contentsOf: ReceiptCLI.vector("38-sandbox-weeka-2025-g5.der")))
        for kept in [real.count / 2, real.count - 1] {
            let truncated = Array(real.prefix(kept))
            Self.expectMalformed([try ReceiptCLI.file(truncated, named: "truncated.der")], "not a valid receipt")
            Self.expectMalformed([], stdin: Data(truncated).base64EncodedString(), "not a valid receipt")
        }
    }

    @Test func base64ThatStopsBeingBase64() throws {
        let broken = String(Self.base64.prefix(200)) + "*%not%base64*" + String(Self.base64.dropFirst(200))
        Self.expectMalformed([broken], "not a receipt: not standard base64 text")
        Self.expectMalformed(
            [try ReceiptCLI.file(Array(broken.utf8), named: "broken.b64")], "not a receipt: not standard base64 text")
        Self.expectMalformed([], stdin: #"{"receipt-data":"\#(broken)"}"#, "not a receipt: not standard base64 text")
    }

    @Test func aContainerWhoseContentIsNotASetOfAttributes() throws {
        for content in [Array("a receipt is a SET of attributes; this is text".utf8), [0x30, 0x03, 0x02, 0x01, 0x05]] {
            let receipt = ReceiptCLI.chain.sign(content)
            Self.expectMalformed(
                [try ReceiptCLI.file(receipt, named: "receipt.der")],
                "not a valid receipt: the receipt is not a DER SET of attributes")
        }
    }

    /// The receipt's content padded with zeros to `size` bytes, its outer length saying so.
    static func oversized(_ size: Int) -> [UInt8] {
        // The receipt is `30 82 HH LL` and its content; the padded one is `30 83 HH MM LL`.
        let length = size - 5
        let header: [UInt8] = [0x30, 0x83, UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let content = receipt.dropFirst(4)
        return header + content + [UInt8](repeating: 0, count: length - content.count)
    }

    /// More than 4 MiB of receipt, raw or in base64 (wrapped or not): refused by size, the limit named.
    @Test func overFourMebibytes() throws {
        let limit = CMSSignedData.maximumSize
        #expect(Self.receipt.prefix(2) == [0x30, 0x82])
        let large = Self.oversized(limit + 1)
        let tooLarge = "not a receipt: 4194305 bytes exceed the limit of 4194304 bytes for a PKCS#7 container"
        Self.expectMalformed([try ReceiptCLI.file(large, named: "large.der")], tooLarge)
        // 4 MiB + 1 byte is as many base64 characters as 4 MiB + 2: decoded, then refused.
        Self.expectMalformed([], stdin: Data(large).base64EncodedString(), tooLarge)
        let larger = Data(Self.oversized(limit + 4))
        let tooLong = "not a receipt: the base64 text decodes to more than 4194304 bytes"
        Self.expectMalformed([], stdin: larger.base64EncodedString(), tooLong)
        Self.expectMalformed([], stdin: larger.base64EncodedString(options: .lineLength76Characters), tooLong)
    }

    /// A receipt just under 4 MiB, wrapped at 76 columns with CRLF, is read whole: line breaks do
    /// not count towards the limit. It also guards linear reading (each line looked at once for
    /// padding: the whole text looked at again for every line took 34 s for 200 kB in a debug
    /// build, and this one would never end); the time limit only stops such a hang, the speed is
    /// measured by `make bench-receipts`.
    @Test(.timeLimit(.minutes(5)))
    func aWrappedReceiptIsReadWholeUpToTheLimit() throws {
        var builder = ReceiptBuilder()
        builder.extraAttributes = [
            TestReceiptAttribute(type: 1000, value: .raw([UInt8](repeating: 0x5a, count: 4_150_000)))
        ]
        let receipt = ReceiptCLI.chain.sign(builder.der())
        #expect(receipt.count > 4_150_000 && receipt.count < CMSSignedData.maximumSize)
        let wrapped = Data(receipt).base64EncodedString(options: [
            .lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed,
        ])
        try Self.expectOneValidReceipt([], stdin: wrapped, "\(receipt.count) bytes wrapped")
    }

    /// 10,001 attributes in the receipt's SET besides its in-app entries, in one in-app entry's,
    /// and 10,001 in-app entries (each an attribute of the receipt's SET, but the in-app limit
    /// is the one they meet, in its words: issue 48).
    @Test(arguments: ["receipt", "in-app entry", "in-app entries"])
    func overTheAttributeLimit(_ place: String) throws {
        let many = ReceiptPayload.maximumAttributes + 1
        var builder = ReceiptBuilder()
        switch place {
        case "receipt":
            builder.extraAttributes = (0..<many).map { TestReceiptAttribute(type: 1000 + $0 % 7, value: .raw([])) }
        case "in-app entry":
            var entry = InAppEntry(productID: "p", transactionID: "1", purchaseDate: ReceiptBuilder.defaultCreationDate)
            entry.extraAttributes = (0..<many).map { TestReceiptAttribute(type: 1800 + $0 % 7, value: .raw([])) }
            builder.inApp = [entry]
        default:
            builder.extraAttributes = (0..<many).map { _ in
                TestReceiptAttribute(type: ReceiptBuilder.Field.inApp, value: .raw([0x31, 0x00]))
            }
        }
        let file = try ReceiptCLI.file(ReceiptCLI.chain.sign(builder.der()), named: "many.der")
        let what = place == "in-app entry" ? "in-app entry 1" : "the receipt"
        Self.expectMalformed(
            [file],
            place == "in-app entries"
                ? "receipt refused: 10001 in-app entries, over the limit of 10000 in-app entries"
                : "receipt refused: \(what) has more than 10000 attributes, over the limit of 10000 attributes per SET")
    }
}
