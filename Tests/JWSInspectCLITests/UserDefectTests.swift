import Foundation
import Testing

/// Issue 11's defects, found by using the executable as people do, each checked through the
/// executable (so each can be run against an earlier build with JWSINSPECT_BIN, where it fails).
@Suite(.timeLimit(.minutes(10))) struct UserDefectTests {
    static let sample = OutputContractTests.sample
    static let token =
        (try? String(contentsOfFile: sample, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""

    static func wrapped(_ text: String, width: Int) -> String {
        stride(from: 0, to: text.count, by: width).map { start in
            String(text.dropFirst(start).prefix(width))
        }.joined(separator: "\n")
    }

    /// Quoted, after "Bearer ", wrapped: an argument, standard input and a file.
    @Test func pastedTokensVerify() throws {
        for pasted in [
            "\"\(Self.token)\"", "'\(Self.token)'", "Bearer \(Self.token)", Self.wrapped(Self.token, width: 76),
        ] {
            let result = try CLI.run(["-q", pasted])
            #expect(result.status == 0, "\(pasted.prefix(10))")
        }
        #expect(try CLI.run(["-q"], stdin: Self.wrapped(Self.token, width: 76) + "\n").status == 0)
        let file = try CLI.temporaryDirectory().appendingPathComponent("wrapped.txt")
        try CLI.write(Self.wrapped(Self.token, width: 64) + "\n" + Self.token + "\n", to: file)
        let both = try CLI.run(["--format", "jsonl", file.path])
        #expect(both.status == 0)
        #expect(
            try both.jsonObjects().map { $0["source"] as? String } == [
                "\(file.path):1 (rejoined from \((Self.token.count + 63) / 64) pieces)",
                "\(file.path):\((Self.token.count + 63) / 64 + 1)",
            ])
    }

    @Test func anUnreadableFileHasAJSONRecord() throws {
        let result = try CLI.run(["--format", "jsonl", "nosuch.jws", Self.sample])
        #expect(result.status == 66)
        let objects = try result.jsonObjects()
        #expect(objects.map { $0["status"] as? String } == ["unreadable", "valid"])
        #expect(objects.first?["source"] as? String == "nosuch.jws")
    }

    @Test func coloursAndCaseInsensitiveValues() throws {
        func run(_ script: String) throws -> CLI.Result { try OutputContractTests.shell(script) }
        #expect(try run("$B --color always \"$S\"").stdout.hasPrefix("\u{1b}["))
        #expect(try run("$B --color=ALWAYS \"$S\"").stdout.hasPrefix("\u{1b}["))
        #expect(try run("unset NO_COLOR; CLICOLOR_FORCE=1 $B \"$S\"").stdout.hasPrefix("\u{1b}["))
        #expect(try run("CLICOLOR_FORCE=1 NO_COLOR=1 $B \"$S\"").stdout.hasPrefix("VALID"))
        #expect(try run("$B --format JSON \"$S\"").stdout.hasPrefix("{"))
        let typo = try run("$B --jsno \"$S\"")
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("jwsinspect: unknown option '--jsno' (did you mean '--json'?)\n"))
    }

    @Test func namedMistakes() throws {
        let header = Data(#"{"alg":"none"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let payload = Data(#"{"sub":"1"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let unsigned = try CLI.run(["--format", "jsonl", "\(header).\(payload)."])
        #expect(unsigned.status == 1)
        #expect(try unsigned.jsonObjects().first?["status"] as? String == "invalid-signature")
        let receipt = CLI.packageRoot.appendingPathComponent("Tests/Vectors/receipts/38-sandbox-weeka-2025-g5.der")
        let base64 = try Data(contentsOf: receipt).base64EncodedString()
        // Once named and refused; now read as what it is.
        let read = try CLI.run(["--format", "jsonl", base64])
        #expect(read.status == 0)
        #expect(try read.jsonObjects().first?["type"] as? String == "receipt")
    }
}
