import AppStoreTestData
import Foundation
import TestPKI
import TestSupport
import Testing

/// Issue 48, item 6: the smaller findings, each through the built executable.
@Suite(.timeLimit(.minutes(10))) struct SmallerHostileCasesCLITests {
    static let pki = ExecutableTests.pki
    static var root: String { ExecutableTests.rootFile }

    /// A file whose name is not UTF-8 is read by its own bytes (Swift's text of the argument
    /// has U+FFFD for each bad byte, which names another file); two such names that read
    /// the same are refused (66), as which is meant cannot be told.
    @Test func aFileNameThatIsNotUTF8IsRead() throws {
        let folder = try CLI.temporaryDirectory()
        let token = folder.appendingPathComponent("token.jws")
        try Data(Self.pki.sign(payloadJSON: TestPayloads.transaction()).utf8).write(to: token)
        let script = """
            cd "$1" && cp token.jws "$(printf 'tx\\377.jws')" && cp token.jws "$(printf 'tx\\376.jws')" || exit 99
            "$2" -q --root "$3" "$(printf 'tx\\377.jws')"; echo "one $?"
            "$2" -q --root "$3" "$(printf 'tx\\377.jws')" "$(printf 'tx\\376.jws')"; echo "two $?"
            """
        let result = try CLI.runProgram(
            "/bin/sh", ["-c", script, "sh", folder.path, CLI.executable.path, Self.root])
        #expect(result.stdout.contains("one 0"), "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("two 66"), "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("its name is not UTF-8, and another argument's name reads the same"))
    }

    /// `--at` reads ISO 8601 as the output writes it, proleptic Gregorian: year 1 is in range,
    /// and a date before 1582-10-15 is that date (Foundation's parser went Julian there).
    @Test(arguments: [
        ("0001-01-01", "0001-01-01T00:00:00.000Z", Int32(2)), ("1582-10-10", "1582-10-10T00:00:00.000Z", 2),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z", 2),
        ("2025-06-01T12:00:00.5+01:00", "2025-06-01T11:00:00.500Z", 0),
    ])
    func theEarliestDatesAreDates(given: String, read: String, status: Int32) throws {
        let result = try CLI.run([
            "--root", Self.root, "--at", given, "--format", "jsonl",
            Self.pki.sign(payloadJSON: TestPayloads.transaction()),
        ])
        // The test certificates are valid from 2024 to 2026 only.
        #expect(result.status == status, "\(result.stdout)\(result.stderr)")
        let record = try #require(try result.jsonObjects().first)
        #expect((record["checkTime"] as? [String: Any])?["time"] as? String == read, "\(result.stdout)")
    }

    /// A receipt whose `receipt_creation_date` is an INTEGER says so, not "absent".
    @Test func aCreationDateOfAnotherTypeIsUnreadable() throws {
        var builder = ReceiptBuilder()
        builder.omitsCreationDate = true
        builder.extraAttributes = [TestReceiptAttribute(type: 12, value: .integer(5))]
        let file = try ReceiptCLI.file(ReceiptCLI.chain.sign(builder.der()), named: "integer-date.der")
        let result = try CLI.run(["--root", ReceiptCLI.rootFile, "--format", "jsonl", file])
        let record = try #require(try result.jsonObjects().first)
        let notes = record["notes"] as? [String] ?? []
        #expect(
            notes.contains("receipt_creation_date is an INTEGER (5), not a date: certificates checked now"),
            "\(notes)")
    }

    /// 9,994 in-app entries are within the in-app limit (10,000), and the receipt's fields do
    /// not make the attributes' limit refuse it first; 10,001 meet the in-app limit, in its words.
    @Test(arguments: [(9_994, true), (10_001, false)])
    func theInAppLimitIsTheOneMet(entries: Int, accepted: Bool) throws {
        let entry = InAppEntry(
            productID: "com.example.coins", transactionID: "1001",
            purchaseDate: Date(timeIntervalSince1970: 1_735_689_600))
        var builder = ReceiptBuilder()
        builder.inApp = Array(repeating: entry, count: entries)
        let file = try ReceiptCLI.file(ReceiptCLI.chain.sign(builder.der()), named: "many-\(entries).der")
        let result = try CLI.run(["--root", ReceiptCLI.rootFile, "--format", "jsonl", file], timeout: 300)
        let record = try #require(try result.jsonObjects().first)
        if accepted {
            #expect(record["status"] as? String == "valid", "\(String(describing: record["reason"]))")
        } else {
            #expect(result.status == 5)
            #expect(
                (record["reason"] as? String)?.contains("10001 in-app entries, over the limit of 10000") == true,
                "\(String(describing: record["reason"]))")
        }
    }

    /// Bidi overrides and isolates and U+2028/U+2029 in a payload are escaped in tables, as
    /// controls are: a product `gpj.<U+202E>exe` cannot show as `exe.jpg`.
    @Test func bidiAndSeparatorsAreEscapedInTables() throws {
        let payload = TestPayloads.transaction().replacingOccurrences(
            of: "com.example.pro.monthly", with: "gpj.\\u202eexe\\u2028x\\u2066y")
        let result = try CLI.run(["--root", Self.root, Self.pki.sign(payloadJSON: payload)])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("gpj.\\u{202e}exe\\u{2028}x\\u{2066}y"), "\(result.stdout)")
        for raw in ["\u{202E}", "\u{2028}", "\u{2066}"] {
            #expect(!result.stdout.unicodeScalars.contains(raw.unicodeScalars.first!))
        }
    }

    /// A developer token's `exp` one second past Apple's 60 minutes says so, never "60 minutes".
    @Test func aLifetimeOverTheLimitIsNotRoundedOntoIt() throws {
        let keys = try SignCommandTests.Keys()
        let now = Int(Date().timeIntervalSince1970)
        let claims =
            #"{"iss":"\#(SignCommandTests.issuer)","iat":\#(now),"exp":\#(now + 3_601),"#
            + #""aud":"appstoreconnect-v1","bid":"com.example.app"}"#
        let token = TestPKI.compactJWS(
            headerJSON: #"{"alg":"ES256","kid":"ABCDE12345","typ":"JWT"}"#, payloadJSON: claims, key: keys.key)
        let result = try CLI.run(["--key", keys.path, "--format", "jsonl", token])
        #expect(result.status == 7, "\(result.stdout)")
        let record = try #require(try result.jsonObjects().first)
        #expect(
            (record["reason"] as? String)?.contains("60 minutes 1 second after iat; Apple refuses") == true,
            "\(String(describing: record["reason"]))")
    }

    /// `bid: " "` is present but names no app: refused, as an empty one is.
    @Test(arguments: [" ", "com.example.app ", "com example"])
    func aBundleIDClaimThatIsNoBundleIDIsRefused(bid: String) throws {
        let keys = try SignCommandTests.Keys()
        let now = Int(Date().timeIntervalSince1970)
        let claims =
            #"{"iss":"\#(SignCommandTests.issuer)","iat":\#(now),"exp":\#(now + 300),"#
            + #""aud":"appstoreconnect-v1","bid":"\#(bid)"}"#
        let token = TestPKI.compactJWS(
            headerJSON: #"{"alg":"ES256","kid":"ABCDE12345","typ":"JWT"}"#, payloadJSON: claims, key: keys.key)
        let result = try CLI.run(["--key", keys.path, "--format", "jsonl", token])
        #expect(result.status == 7, "\(result.stdout)")
        let record = try #require(try result.jsonObjects().first)
        #expect((record["reason"] as? String)?.contains("not a bundle ID") == true, "\(record)")
    }
}

/// Issue 48, item 4: memory follows the record, not the tokens in it. A line of minimal tokens
/// glued by spaces was held as a list of them (about a hundred bytes each beyond their text)
/// and, with more than one job, as a list of their results: a 64 MiB line took 2.45 GB. A
/// JSON document of many small values took 26 times its size to decode. The bounds here are
/// generous checks of the kernel's high-water mark, not measurements: `make bench` measures.
@Suite(.timeLimit(.minutes(10))) struct MemoryPerRecordCLITests {
    /// Runs the executable (through `ChildProcess`), reading its peak resident set (`VmHWM` in
    /// /proc, which only grows) every 10 ms while it runs: the last reading before it exits,
    /// in KiB. (`wait4`'s `ru_maxrss` would count the test process's own, from before exec.)
    /// Under AddressSanitizer or ThreadSanitizer (`make sanitize` sets their options) memory is
    /// the sanitizer's (shadow memory, quarantine): the bounds are not checked there.
    static let underSanitizer = ["ASAN_OPTIONS", "TSAN_OPTIONS"].contains {
        ProcessInfo.processInfo.environment[$0] != nil
    }

    static func runWithPeak(_ arguments: [String]) throws -> (result: ChildProcess.Result, peakKiB: Int) {
        let child = try ChildProcess(
            CLI.executable.path, arguments, directory: try CLI.temporaryDirectory(), input: .nullDevice,
            timeout: .seconds(600), outputLimit: 256 << 20)
        let peak = Locked(0)
        let done = Locked(false)
        let path = "/proc/\(child.pid)/status"
        let sampler = Thread {
            while !done.value {
                if let status = try? String(contentsOfFile: path, encoding: .utf8),
                    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                    let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
                {
                    peak.update { $0 = max($0, kib) }
                }
                usleep(10_000)
            }
        }
        sampler.start()
        defer { done.set(true) }
        let result = try child.finish()
        return (result, peak.value)
    }

    /// 8 MiB of `eyJhIjoxfQ.eyJhIjoxfQ.x ` (350,000 tokens) on one line: every token has its
    /// result, in order, and the peak stays under 4 times the line plus 32 MiB (161 MB before).
    @Test(arguments: [nil, "8"])
    func aLineOfGluedTokensIsNotHeldAsAList(jobs: String?) throws {
        let file = try CLI.temporaryDirectory().appendingPathComponent("glued.txt")
        let count = 350_000
        try Data((String(repeating: "eyJhIjoxfQ.eyJhIjoxfQ.x ", count: count) + "\n").utf8).write(to: file)
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        let (result, peak) = try Self.runWithPeak(
            ["--format", "jsonl"] + (jobs.map { ["--jobs", $0] } ?? []) + [file.path])
        var lines = 0
        for byte in result.stdout where byte == UInt8(ascii: "\n") { lines += 1 }
        #expect(lines == count, "\(lines) results")
        #expect(result.status == 5, "\(result.stderrText.prefix(300))")
        let bound = (4 * size + (32 << 20)) >> 10
        #expect(Self.underSanitizer || peak > 0 && peak <= bound, "peak \(peak) KiB, bound \(bound) KiB")
    }

    /// A document of 5 million numbers (10 MB) would take about 280 MB to decode, past the
    /// 256 MiB a record's tree may take: refused before it is read, in one line naming why.
    /// 33 million (66 MB) took 1.7 GB and 33 s before; refused at once now.
    @Test(arguments: [5_000_000, 33_000_000])
    func aDocumentOfManySmallValuesIsRefusedBeforeItIsRead(values: Int) throws {
        let file = try CLI.temporaryDirectory().appendingPathComponent("numbers.json")
        let text = Array(("[1" + String(repeating: ",1", count: values - 1) + "]\n").utf8)
        try Data(text).write(to: file)
        let (result, peak) = try Self.runWithPeak(["-q", file.path])
        #expect(result.status == 5)
        #expect(
            result.stderrText.contains(
                // The array is a value too.
                "the JSON document on line 1 is refused: it holds about \(values + 1) values in \(text.count - 1) bytes"
            ),
            "\(result.stderrText)")
        #expect(Self.underSanitizer || peak <= (4 * text.count + (32 << 20)) >> 10, "peak \(peak) KiB")
    }
}

/// Issue 48, item 1, through the executable: member names of combining marks are refused
/// before anything compares them (Swift normalises them in more than linear time), in a JSON
/// document of the input as in a token's payload. Without the check these runs take minutes
/// (a 320 KB name in a document took 131 s), and the process helper's timeout fails them.
@Suite(.timeLimit(.minutes(10))) struct MemberNameCostCLITests {
    static let marks = String(repeating: "\u{301}\u{316}", count: 80_000)

    @Test func aLongNameInADocumentIsRefusedBeforeItIsDecoded() throws {
        let body = #"{"a\#(Self.marks)":1,"signedPayload":"x"}"#
        let result = try CLI.run(["--format", "jsonl", "-"], stdin: body + "\n", timeout: 120)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "the JSON document on line 1 is refused: a member name of 320001 bytes that is not ASCII, over the "
                    + "1024 bytes such a name may have"), "\(result.stderr)")
    }

    @Test func manyNamesAreRefusedPastTheirTotal() throws {
        let names = (0..<1_000).map { String(format: "%04d", $0) + String(repeating: "\u{301}\u{316}", count: 255) }
        let body = "{" + names.map { #""\#($0)":1"# }.joined(separator: ",") + "}"
        let result = try CLI.run(["--format", "jsonl", "-"], stdin: body + "\n", timeout: 120)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(
            result.stderr.contains("member names that are not ASCII of 66560 bytes in all, over the 65536 bytes"),
            "\(result.stderr)")
    }

    /// Inside the payload of an unsigned token (35 s before `invalid-chain` for 213 KB).
    @Test func aLongNameInAPayloadIsMalformed() throws {
        let payload = TestPKI.base64URL(Array(#"{"a\#(Self.marks)":1}"#.utf8))
        let token = TestPKI.base64URL(Array(#"{"alg":"ES256","x5c":["AA=="]}"#.utf8)) + "." + payload + ".AAAA"
        let result = try CLI.run(["--format", "jsonl", "-"], stdin: token + "\n", timeout: 120)
        #expect(result.status == 5, "\(result.stdout)")
        #expect(result.stdout.contains("a member name of 320001 bytes that is not ASCII"), "\(result.stdout)")
    }
}
