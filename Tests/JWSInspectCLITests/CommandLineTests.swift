import Foundation
import JWSInspectCore
import Testing

@testable import JWSInspectCLI

/// The command line parsed in this process, from the option tables: every option, every
/// usage error, subcommands, colours, and what the documentation generated from the tables says.
@Suite(.timeLimit(.minutes(10))) struct CommandLineTests {
    static func parse(_ arguments: [String]) throws -> InspectOptions {
        try InspectOptions.parse(arguments)
    }

    static func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try InspectOptions.parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    // MARK: Every option

    @Test func everyOptionOfInspect() throws {
        let uuid = UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138")!
        #expect(try Self.parse(["--at", "now"]).timePolicy == .now)
        #expect(try Self.parse(["--at=2024-05-01"]).timePolicy == .fixed(Date(timeIntervalSince1970: 1_714_521_600)))
        #expect(
            try Self.parse(["--at", "1714521600000"]).timePolicy == .fixed(Date(timeIntervalSince1970: 1_714_521_600)))
        #expect(
            try Self.parse(["--at", "2024-05-01T12:00:00Z"]).timePolicy
                == .fixed(Date(timeIntervalSince1970: 1_714_564_800)))
        // --access-at moves the access time alone; --at the certificate check time alone.
        let accessAt = try Self.parse(["--access-at", "2024-05-01"])
        #expect(accessAt.accessAt == .fixed(Date(timeIntervalSince1970: 1_714_521_600)))
        #expect(accessAt.timePolicy == .signingTime)
        #expect(try Self.parse(["--access-at", "7d"]).accessAt == .ago(604_800))
        #expect(try Self.parse(["--at", "2024-05-01"]).accessAt == nil)
        #expect(throws: UsageError.self) { try Self.parse(["--access-at", "tomorrow"]) }
        #expect(try Self.parse(["--root", "a.pem", "--root=b.der"]).rootFiles == ["a.pem", "b.der"])
        #expect(try Self.parse(["--x509-strict"]).strictX509)
        #expect(try Self.parse(["--no-verify"]).verify == false)
        #expect(try Self.parse(["--bundle-id", "com.example.app"]).bundleId == "com.example.app")
        #expect(try Self.parse(["--app-apple-id", "1234"]).appAppleId == 1234)
        #expect(try Self.parse(["--environment", "Sandbox"]).environment == .sandbox)
        #expect(try Self.parse(["--account-token", uuid.uuidString]).accountToken == uuid)
        #expect(try Self.parse(["--device-id", uuid.uuidString.lowercased()]).deviceID == uuid)
        #expect(try Self.parse(["--require-active"]).requireActive)
        #expect(try Self.parse(["--exact"]).exact)
        #expect(try Self.parse([]).exact == false)
        #expect(try Self.parse(["--type", "renewalInfo"]).kind == .renewalInfo)
        #expect(try Self.parse(["--format", "jsonl"]).format == .jsonl)
        #expect(try Self.parse(["--json"]).format == .json)
        #expect(try Self.parse(["-q"]).quiet)
        #expect(try Self.parse(["--quiet"]).quiet)
        #expect(try Self.parse(["--summary"]).summary)
        #expect(try Self.parse(["--brief"]).brief)
        #expect(try Self.parse(["--time-zone", "Europe/Paris"]).timeZone == "Europe/Paris")
        #expect(try Self.parse(["-j", "3"]).jobs == 3)
        #expect(try Self.parse(["--jobs=256"]).jobs == 256)
        #expect(try Self.parse(["--first-line", "10001"]).firstLine == 10001)
        #expect(try Self.parse([]).firstLine == 1)
        #expect(try Self.parse(["--color"]).output.color == .always)
        #expect(try Self.parse(["--color", "never"]).output.color == .never)
        #expect(try Self.parse(["--color=auto"]).output.color == .auto)
        #expect(try Self.parse(["--no-color"]).output.color == .never)
        #expect(try Self.parse(["-h"]).showHelp)
        #expect(try Self.parse(["--help"]).showHelp)
        #expect(try Self.parse(["--version"]).showVersion)
        #expect(try Self.parse(["--key", "a.p8", "--key=b.pem"]).keyOptions.keyFiles == ["a.p8", "b.pem"])
        #expect(try Self.parse(["--key-id", "2X9R4HXF34"]).keyOptions.keyID == "2X9R4HXF34")
        #expect(try Self.parse(["a.jws", "-", "--", "--json"]).inputs == ["a.jws", "-", "--json"])
        #expect(try Self.parse([]).inputs.isEmpty)
        // `--color` alone before an input: the input stays an input.
        let colored = try Self.parse(["--color", "t.jws"])
        #expect(colored.output.color == .always && colored.inputs == ["t.jws"])
        let checking = try Self.parse(["--check-revocation", "--revocation-cache", "c", "--timeout", "3"])
        #expect(checking.checkRevocation && !checking.requireRevocationCheck)
        #expect(checking.revocationCache == "c" && checking.revocationTimeout == 3)
        let requiring = try Self.parse(["--require-revocation-check"])
        #expect(requiring.checkRevocation && requiring.requireRevocationCheck)
        #expect(try Self.parse([]).checkRevocation == false)
        #expect(try Self.parse(["--redact"]).redact && !(try Self.parse([]).redact))
        // Every option of the table is exercised above.
        let exercised: Set = [
            "--at", "--access-at", "--root", "--x509-strict", "--no-verify", "--bundle-id", "--app-apple-id",
            "--environment", "--account-token", "--device-id", "--require-active", "--exact", "--type", "--format",
            "--json", "--quiet",
            "--summary", "--brief", "--time-zone", "--redact",
            "--jobs", "--first-line", "--color", "--no-color", "--help", "--version", "--key", "--key-id",
            "--check-revocation", "--require-revocation-check", "--revocation-cache", "--timeout",
        ]
        #expect(Set(InspectOptions.table.map { $0.doc.names[0] }) == exercised)
    }

    /// Option values are matched without regard to case (`--format JSON`).
    @Test func choicesIgnoreCase() throws {
        #expect(try Self.parse(["--format", "JSON"]).format == .json)
        #expect(try Self.parse(["--format=JsonL"]).format == .jsonl)
        #expect(try Self.parse(["--environment", "sandbox"]).environment == .sandbox)
        #expect(try Self.parse(["--environment=PRODUCTION"]).environment == .production)
        #expect(try Self.parse(["--type", "APPTRANSACTION"]).kind == .appTransaction)
        #expect(try Self.parse(["--color", "ALWAYS"]).output.color == .always)
        #expect(try Self.parse(["--at", "NOW"]).timePolicy == .now)
    }

    // MARK: Every usage error

    @Test(arguments: [
        (["--jsno"], "unknown option '--jsno' (did you mean '--json'?)"),
        (["--formt", "json"], "unknown option '--formt' (did you mean '--format'?)"),
        (["--enviroment", "Sandbox"], "unknown option '--enviroment' (did you mean '--environment'?)"),
        (["--bogus-thing"], "unknown option '--bogus-thing'"),
        (["-x"], "unknown option '-x'"),
        (["--json=yes"], "--json takes no value"),
        (["--format"], "--format needs a value: table, json or jsonl"),
        (["--format", "xml"], "--format must be table, json or jsonl, not 'xml'"),
        (["--environment", "Prod"], "--environment must be Production, Sandbox, Xcode or LocalTesting, not 'Prod'"),
        (
            ["--type", "receipt"],
            "--type must be transaction, renewalInfo, notification, appTransaction or realtimeRequest, not 'receipt'"
        ),
        (["--color=sometimes"], "--color must be auto, always or never, not 'sometimes'"),
        (["--root"], "--root needs a value"),
        (["--bundle-id", ""], "--bundle-id needs a non-empty bundle ID"),
        (["--app-apple-id", "-3"], "--app-apple-id must be a whole number, not '-3'"),
        (
            ["--app-apple-id", "99999999999999999999"],
            "--app-apple-id must be a whole number, not '99999999999999999999'"
        ),
        (["--jobs", "0"], "--jobs must be a whole number from 1 to 256, not '0'"),
        (["-j", "257"], "--jobs must be a whole number from 1 to 256, not '257'"),
        (["--jobs", "+4"], "--jobs must be a whole number from 1 to 256, not '+4'"),
        (
            ["--account-token", "nope"],
            "--account-token must be a UUID such as 7e3fb20b-4cdb-47cc-936d-99d65f608138, not 'nope'"
        ),
        (
            ["--device-id", "nope"],
            "--device-id must be a UUID such as 7e3fb20b-4cdb-47cc-936d-99d65f608138, not 'nope'"
        ),
        (
            ["--at", "yesterday"],
            "--at takes 'now', an ISO-8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z, or milliseconds since 1970; "
                + "not 'yesterday'"
        ),
        (["--at", "99999999999999999"], "--at '99999999999999999' is not a date within years 0001 to 9999"),
        (
            ["--exact", "--first-line", "3"],
            "--first-line numbers the lines of a stream; --exact reads each input as one item"
        ),
    ])
    func usageErrors(_ arguments: [String], _ message: String) {
        #expect(Self.usageError(arguments) == message)
    }

    /// A usage error prints the message and the usage line, and exits 64; nothing on standard output.
    @Test func usageErrorsExit64() {
        let result = InProcess.run(["--jsno", "t.jws"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == "jwsinspect: unknown option '--jsno' (did you mean '--json'?)\n"
                + "jwsinspect: usage: jwsinspect [inspect] [options] [JWS | FILE | -]... (see --help)\n")
    }

    /// Messages quote at most about 60 characters of what was given.
    @Test func usageErrorsQuoteAnExcerpt() throws {
        let long = String(repeating: "x", count: 5000)
        for arguments in [["--format", long], ["--" + long], ["--at", long], ["--jobs", long]] {
            let message = try #require(Self.usageError(arguments))
            #expect(message.count < 200, "\(arguments[0].prefix(10))")
        }
    }

    @Test func subcommandUsageErrors() {
        #expect(
            InProcess.run(["completion"]).stderr.hasPrefix("jwsinspect: completion needs a shell: bash, zsh or fish\n"))
        #expect(
            InProcess.run(["completion", "tcsh"]).stderr.hasPrefix(
                "jwsinspect: completion: the shell must be bash, zsh or fish, not 'tcsh'\n"))
        #expect(InProcess.run(["completion", "bash", "zsh"]).status == 64)
        #expect(InProcess.run(["completion", "--jsno"]).stderr.hasPrefix("jwsinspect: unknown option '--jsno'"))
        #expect(
            InProcess.run(["help", "inspekt"]).stderr.hasPrefix(
                "jwsinspect: help: no subcommand 'inspekt' (did you mean 'inspect'?); there are inspect, fetch, listen, "
                    + "sign, mint, timeline, verify-offer-v1, completion or help\n"))
        #expect(
            InProcess.run(["help", "--man", "--mna"]).stderr.hasPrefix(
                "jwsinspect: unknown option '--mna' (did you mean '--man'?)"))
        for arguments in [["completion"], ["completion", "tcsh"], ["help", "inspekt"], ["help", "a", "b"]] {
            let result = InProcess.run(arguments)
            #expect(result.status == 64 && result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test func didYouMeanCountsASwapAsOneEdit() {
        #expect(EditDistance.distance("--mna", "--man") == 1)
        #expect(EditDistance.distance("kitten", "sitting") == 3)
        #expect(EditDistance.closest(to: "--quite", among: ["--quiet", "--summary"]) == "--quiet")
        #expect(EditDistance.closest(to: "--zzzzzz", among: ["--quiet", "--summary"]) == nil)
    }

    // MARK: Subcommands

    @Test func inspectIsTheDefaultSubcommand() {
        #expect(Command.subcommand(of: ["t.jws"]).name == .inspect)
        #expect(Command.subcommand(of: ["inspect", "t.jws"]) == (.inspect, ["t.jws"]))
        #expect(Command.subcommand(of: ["completion", "bash"]) == (.completion, ["bash"]))
        #expect(Command.subcommand(of: ["help"]) == (.help, []))
        #expect(Command.subcommand(of: ["./help"]) == (.inspect, ["./help"]))
        #expect(Command.subcommand(of: []) == (.inspect, []))
        // The names a run picks by are the documented subcommands', in the same order.
        #expect(Commands.Name.allCases.map(\.rawValue) == Commands.all.map(\.name))
        #expect(InProcess.run(["inspect", "--help"]).stdout == InProcess.run(["--help"]).stdout)
        #expect(InProcess.run(["help"]).stdout == HelpText.main)
        #expect(InProcess.run(["help", "completion"]).stdout == InProcess.run(["completion", "--help"]).stdout)
        #expect(
            InProcess.run(["help", "completion"]).stdout.hasPrefix(
                "jwsinspect completion — print a shell completion script."))
    }

    // MARK: Colours

    @Test(arguments: [
        ([String](), [String: String](), true, true),
        ([], [:], false, false),
        ([], ["NO_COLOR": "1"], true, false),
        ([], ["NO_COLOR": ""], true, true),
        ([], ["TERM": "dumb"], true, false),
        ([], ["CLICOLOR_FORCE": "1"], false, true),
        ([], ["CLICOLOR_FORCE": "0"], false, false),
        ([], ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"], false, false),
        (["--color"], ["NO_COLOR": "1"], false, true),
        (["--color", "always"], ["TERM": "dumb"], false, true),
        (["--color=never"], [:], true, false),
        (["--color", "NEVER"], ["CLICOLOR_FORCE": "1"], true, false),
        (["--no-color"], [:], true, false),
        (["--color=auto"], [:], true, true),
    ])
    func colours(_ arguments: [String], _ environment: [String: String], _ terminal: Bool, _ expected: Bool) throws {
        let options = try Self.parse(arguments)
        #expect(options.usesColor(stdoutIsTerminal: terminal, environment: { environment[$0] }) == expected)
        // And the run itself: a verdict in colour starts with an escape sequence.
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        let result = InProcess.run(arguments + [sample], environment: environment, stdoutIsTerminal: terminal)
        #expect(result.stdout.hasPrefix("\u{1b}[") == expected)
    }

    // MARK: Output that cannot be written

    /// Every format, --help and --version: a failed write says why and exits 74.
    @Test(arguments: [
        ["--json"], ["--format", "jsonl"], [], ["--help"], ["--version"], ["help", "--man"], ["completion", "zsh"],
    ])
    func aFailedWriteIsAnError(_ arguments: [String]) {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        let inputs =
            arguments.contains { $0.hasPrefix("--help") || $0 == "--version" || $0 == "help" || $0 == "completion" }
            ? [] : [sample]
        let full = InProcess.run(arguments + inputs, failWritesWith: ENOSPC)
        #expect(full.status == 74)
        #expect(full.stderr.hasSuffix("jwsinspect: write error: No space left on device\n"))
        let closed = InProcess.run(arguments + inputs, failWritesWith: EBADF)
        #expect(closed.status == 74)
        #expect(closed.stderr.hasSuffix("jwsinspect: write error: Bad file descriptor\n"))
        // A reader that has gone (`| head -1`): quiet, as the default SIGPIPE would end it.
        let pipe = InProcess.run(arguments + inputs, failWritesWith: EPIPE)
        #expect(pipe.status == 141)
        #expect(!pipe.stderr.contains("write error"))
    }

    @Test func quietWritesNothingSoNothingFails() {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        #expect(InProcess.run(["-q", sample], failWritesWith: ENOSPC).status == 0)
    }

    // MARK: One record per input, and the summary

    @Test func anUnreadableInputHasARecordInItsPlace() throws {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        let result = InProcess.run(["--format", "jsonl", "--summary", "nosuch.jws", sample, "/"])
        #expect(result.status == 66)
        let lines = result.stdout.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 3)
        #expect(lines[0]?["source"] as? String == "nosuch.jws")
        #expect(lines[0]?["status"] as? String == "unreadable")
        #expect(
            lines[0]?["reason"] as? String
                == "cannot read 'nosuch.jws': No such file or directory (and it is not a JWS)")
        #expect(lines[1]?["status"] as? String == "valid")
        #expect(lines[2]?["source"] as? String == "/")
        #expect(lines[2]?["reason"] as? String == "cannot read '/': it is a directory")
        #expect(
            result.stderr.hasSuffix(
                "{\"schemaVersion\":1,\"record\":\"summary\",\"total\":3,\"statuses\":{\"valid\":1,\"unreadable\":2}}\n"
            ))
        // Pretty JSON: the same record; tables: standard error only.
        #expect(InProcess.run(["--json", "nosuch.jws"]).stdout.contains("\"status\": \"unreadable\""))
        #expect(InProcess.run(["nosuch.jws"]).stdout.isEmpty)
        // A closed standard input is an input that cannot be read, too.
        let closed = InProcess.run(["--format", "jsonl"], stdin: nil)
        #expect(closed.status == 66)
        #expect(
            closed.stdout.hasPrefix(
                "{\"schemaVersion\":1,\"record\":\"result\",\"source\":\"-\",\"type\":\"unknown\",\"envelope\":null,\"status\":\"unreadable\","
                    + "\"reason\":\"cannot read standard input: it is closed"))
        // The keys every record has, in order, nothing verified.
        let record = try #require(try JSONSerialization.jsonObject(with: Data(closed.stdout.utf8)) as? [String: Any])
        #expect(Set(record.keys) == Set(JSONRecord.keys))
        #expect(record["verified"] as? Bool == false && record["summary"] is NSNull)
    }

    @Test func theSummaryGoesToStandardErrorInEveryMode() {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        for format in ["table", "json", "jsonl"] {
            let result = InProcess.run(["--format", format, "--summary", sample])
            #expect(
                !result.stdout.contains("\"record\":\"summary\"") && !result.stdout.contains("\"total\""), "\(format)")
            #expect(result.stderr.contains("summary"), "\(format)")
        }
        #expect(InProcess.run(["-q", "--summary", sample]).stderr == "jwsinspect: summary: 1 result: 1 valid\n")
        #expect(
            InProcess.run(["-q", "--format", "jsonl", "--summary", sample]).stderr
                == "{\"schemaVersion\":1,\"record\":\"summary\",\"total\":1,\"statuses\":{\"valid\":1}}\n")
    }

    // MARK: Pasting

    /// Quoted, after `Bearer `, wrapped: each verifies exactly as the bare token.
    @Test func pastedArgumentsVerifyLikeTheBareToken() throws {
        let token = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws"), encoding: .utf8
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
        let bare = InProcess.run(["--format", "jsonl", token])
        #expect(bare.status == 0)
        var wrapped = ""
        for (index, character) in token.enumerated() {
            if index > 0, index % 76 == 0 { wrapped += "\n" }
            wrapped.append(character)
        }
        for pasted in [
            "\"\(token)\"", "'\(token)'", "Bearer \(token)", "  \"\(token)\"\n", "bearer \(token)", wrapped,
            "\"\(wrapped)\"",
        ] {
            let result = InProcess.run(["--format", "jsonl", pasted])
            #expect(result.status == 0, "\(pasted.prefix(12))")
            // A wrapped argument has lines, so its source names the line.
            // Its source says it was rejoined.
            let source = result.stdout.replacingOccurrences(
                of: #"argument 1(:1)?( \(rejoined from [0-9]+ pieces\))?"#, with: "argument 1",
                options: .regularExpression)
            #expect(source == bare.stdout, "\(pasted.prefix(12))")
        }
        // On standard input, wrapped at 76 columns too.
        let stdin = InProcess.run(["--format", "jsonl"], stdin: wrapped + "\n")
        #expect(
            stdin.stdout.replacingOccurrences(of: "<stdin>:1 (rejoined from 69 pieces)", with: "argument 1")
                == bare.stdout)
    }

    /// An argument that is neither a file nor a JWS is named by an excerpt, not echoed whole;
    /// too long to be a file name, it is malformed input (5), not an unreadable file (66).
    @Test func errorsEchoAtMostAnExcerpt() {
        let garbage = String(repeating: "zq", count: 3000)
        let result = InProcess.run([garbage])
        #expect(result.status == 5)
        #expect(result.stderr.contains("not a file, and not a JWS or receipt: 'zqzq"))
        #expect(result.stderr.count < 200)
        #expect(result.stderr.contains("zqzq") && result.stderr.contains("…'"))
    }

    // MARK: Named mistakes

    /// A legacy receipt, as DER, as base64 in an argument and wrapped on standard input: read
    /// and verified as one receipt each time, at its creation date.
    @Test func aLegacyReceiptIsReadInEveryForm() throws {
        let file = CLI.packageRoot.appendingPathComponent("Tests/Vectors/receipts/06-sandbox-griddiary-2014.der")
        let base64 = try Data(contentsOf: file).base64EncodedString()
        let wrapped = try Data(contentsOf: file).base64EncodedString(options: .lineLength76Characters)
        for result in [InProcess.run([file.path]), InProcess.run([base64]), InProcess.run([], stdin: wrapped + "\n")] {
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("VALID — authentic Apple-signed app receipt"))
            #expect(result.stdout.components(separatedBy: "\nVALID").count == 1, "one receipt, not one per line")
            #expect(result.stderr.isEmpty)
        }
    }

    /// `header.payload.` is an unsigned JWS (exit 1, naming alg and the empty signature), and
    /// another issuer's JWT says it is not App Store signed data.
    @Test func unsignedAndForeignTokensAreNamed() throws {
        func token(_ header: String, signature: String) -> String {
            Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(#"{"sub":"1"}"#.utf8)) + "." + signature
        }
        let unsigned = InProcess.run(["--format", "jsonl", token(#"{"alg":"none"}"#, signature: "")])
        #expect(unsigned.status == 1)
        #expect(
            unsigned.stdout.contains(
                #""status":"invalid-signature","reason":"signature: alg \"none\" with an empty signature"#))
        let hmac = InProcess.run([
            "--format", "jsonl", token(#"{"alg":"HS256","typ":"JWT"}"#, signature: String(repeating: "A", count: 43)),
        ])
        #expect(hmac.status == 1)
        #expect(hmac.stdout.contains("an HMAC-signed JWT (HS256"))
        #expect(hmac.stdout.contains("not App Store signed data"))
    }
}
