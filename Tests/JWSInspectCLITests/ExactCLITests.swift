import Foundation
import Testing

/// `--exact` (issue 47, item 9), as a backend gating a purchase runs it: one minted token,
/// webhook body or receipt passes `--require-active`; the same token with text around it, two
/// tokens, or a body with another member is malformed (exit 5) with one line saying why, where
/// the forgiving reader would have found the token; fetch and timeline refuse the option.
@Suite(.timeLimit(.minutes(10))) struct ExactCLITests {
    /// A `mint ca` folder, a transaction that grants access now (`InProcess.now`) and a
    /// SUBSCRIBED notification nesting one, minted in process.
    static let minted: (root: String, transaction: String, notification: String)? = {
        guard let folder = try? CLI.temporaryDirectory().appendingPathComponent("ca"),
            InProcess.run(["mint", "ca", "--out", folder.path]).status == 0
        else { return nil }
        func mint(_ kind: String) -> String? {
            let result = InProcess.run(["mint", kind, "--ca", folder.path])
            guard result.status == 0 else { return nil }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let transaction = mint("transaction"), let notification = mint("notification") else { return nil }
        return (folder.appendingPathComponent("root.der").path, transaction, notification)
    }()

    static let receipt = CLI.packageRoot.appendingPathComponent("Samples/receipt-production-2024.der").path

    /// The gate: `--exact --require-active` under the CA's root, reading `arguments` (standard
    /// input when none).
    static func gate(_ arguments: [String] = [], stdin: String = "", extra: [String] = []) throws -> InProcess.Result {
        let minted = try #require(minted)
        return InProcess.run(
            ["--exact", "--require-active", "--root", minted.root, "-q"] + extra + arguments, stdin: stdin)
    }

    /// The one line a refusal gets on standard error.
    static func refusal(_ source: String, _ what: String) -> String {
        "jwsinspect: \(source): malformed: --exact: the input \(what); give exactly one JWS, webhook body or receipt, "
            + "or drop --exact\n"
    }

    // MARK: Accepted

    @Test func oneTokenPassesTheGateFromStandardInputAFileOrAnArgument() throws {
        let minted = try #require(Self.minted)
        let stdin = try Self.gate(stdin: "\r\n" + minted.transaction + "\r\n")
        #expect(stdin.status == 0 && stdin.stderr.isEmpty, "\(stdin.stderr)")
        let file = try CLI.temporaryDirectory().appendingPathComponent("transaction.jws")
        try CLI.write(minted.transaction + "\n", to: file)
        let fromFile = try Self.gate([file.path])
        #expect(fromFile.status == 0 && fromFile.stderr.isEmpty, "\(fromFile.stderr)")
        #expect(try Self.gate([minted.transaction]).status == 0)
    }

    @Test func oneWebhookBodyPassesTheGate() throws {
        let minted = try #require(Self.minted)
        let body = "{\n  \"signedPayload\": \"\(minted.notification)\"\n}\n"
        let result = try Self.gate(stdin: body)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        // Named by its member, as without --exact.
        let json = InProcess.run(["--exact", "--root", minted.root, "--format", "jsonl", "-"], stdin: body)
        #expect(
            json.stdout.hasPrefix(
                #"{"schemaVersion":1,"record":"result","source":"<stdin>: signedPayload","type":"notification""#))
    }

    @Test func oneReceiptIsReadRawOrAsOneLineOfBase64() throws {
        // Apple's receipt of 2024 is another app's and lapsed: valid, exit 0 without expectations.
        #expect(InProcess.run(["--exact", "-q", Self.receipt]).status == 0)
        let base64 = try Data(contentsOf: URL(fileURLWithPath: Self.receipt)).base64EncodedString()
        #expect(InProcess.run(["--exact", "-q"], stdin: base64 + "\n").status == 0)
        let wrapped = InProcess.run(["--exact", "-q"], stdin: String(base64.prefix(76)) + "\n" + base64.dropFirst(76))
        #expect(wrapped.status == 5)
        #expect(
            wrapped.stderr == Self.refusal("<stdin>", "is one receipt broken into 2 pieces by whitespace (wrapped)"))
    }

    // MARK: Refused

    @Test func textAroundTheTokenIsMalformedWhereTheForgivingReaderFoundIt() throws {
        let minted = try #require(Self.minted)
        let pasted = "junk \(minted.transaction) junk"
        #expect(
            InProcess.run(["--require-active", "--root", minted.root, "-q", pasted]).status == 0,
            "without --exact, the token in the text is read")
        let result = try Self.gate([pasted])
        #expect(result.status == 5)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == Self.refusal("argument 1", "has text before and after the JWS ('junk' and 'junk')"))
        // Quotes and "Bearer " too: an argument is read as given.
        let quoted = try Self.gate(["\"\(minted.transaction)\""])
        #expect(quoted.stderr == Self.refusal("argument 1", "has text before and after the JWS ('\"' and '\"')"))
        let bearer = try Self.gate(stdin: "Bearer \(minted.transaction)\n")
        #expect(bearer.status == 5)
        #expect(bearer.stderr == Self.refusal("<stdin>", "has text before the JWS ('Bearer')"))
    }

    @Test func twoTokensAreMalformed() throws {
        let minted = try #require(Self.minted)
        let result = try Self.gate(stdin: "\(minted.transaction)\n\(minted.transaction)\n")
        #expect(result.status == 5)
        #expect(result.stderr == Self.refusal("<stdin>", "holds 2 JWS"))
    }

    @Test func aWebhookBodyWithAnotherMemberOrNotAnObjectIsMalformed() throws {
        let minted = try #require(Self.minted)
        let extra = try Self.gate(stdin: #"{"signedPayload":"\#(minted.notification)","note":"x"}"#)
        #expect(extra.status == 5)
        #expect(
            extra.stderr == Self.refusal("<stdin>", #"is a JSON object with members besides signedPayload: "note""#))
        let array = try Self.gate(stdin: #"[{"signedPayload":"\#(minted.notification)"}]"#)
        #expect(array.status == 5)
        #expect(array.stderr == Self.refusal("<stdin>", #"is a JSON array, not a webhook body {"signedPayload":"…"}"#))
    }

    @Test func nothingIsMalformedAndAMissingFileUnreadable() throws {
        let empty = try Self.gate(stdin: " \n")
        #expect(empty.status == 5)
        #expect(empty.stderr == Self.refusal("<stdin>", "is empty"))
        let missing = try Self.gate(["nosuch.jws"])
        #expect(missing.status == 66)
        #expect(
            missing.stderr == "jwsinspect: cannot read 'nosuch.jws': No such file or directory (and it is not a JWS)\n")
    }

    /// Each input is one item: in JSON lines, each has its record, in input order; the first
    /// failure's status is the run's.
    @Test func eachInputIsOneItemWithItsOwnRecord() throws {
        let minted = try #require(Self.minted)
        let result = InProcess.run([
            "--exact", "--root", minted.root, "--format", "jsonl", "junk \(minted.transaction)", minted.transaction,
        ])
        #expect(result.status == 5)
        let records = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(records.map { $0["source"] as? String } == ["argument 1", "argument 2"])
        #expect(records.map { $0["status"] as? String } == ["malformed", "valid"])
        #expect((records[0]["reason"] as? String)?.hasPrefix("--exact: the input has text before the JWS") == true)
    }

    /// The executable itself: exit 5 and one line on standard error, nothing on standard output.
    @Test func theExecutableRefusesWithOneLine() throws {
        let minted = try #require(Self.minted)
        let result = try CLI.run(
            ["--exact", "--require-active", "--root", minted.root, "-"], stdin: "\(minted.transaction) trailing")
        #expect(result.status == 5)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == Self.refusal("<stdin>", "has text after the JWS ('trailing')"))
    }

    // MARK: Usage

    /// fetch and timeline lift inspect's options from `InspectOptions.mainTable`, which has no
    /// `--exact`: each refuses it as unknown (a fetched answer and a log are no one item).
    @Test(arguments: [["fetch", "transaction", "2000000000000010", "--exact"], ["timeline", "--exact", "-"]])
    func fetchAndTimelineRefuseIt(_ arguments: [String]) throws {
        let result = InProcess.run(arguments)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("jwsinspect: unknown option '--exact'")
                && result.stderr.contains("\njwsinspect: usage: jwsinspect \(arguments[0]) "))
        #expect(result.stdout.isEmpty)
    }

    @Test func firstLineIsRefusedWithIt() {
        let result = InProcess.run(["--exact", "--first-line", "3", "-"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "jwsinspect: --first-line numbers the lines of a stream; --exact reads each input as one item\n"))
    }
}
