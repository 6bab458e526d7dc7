import Foundation
import JWSInspectCore
import Testing

@testable import JWSInspectCLI

/// Issue 26's one contract: one spelling for each thing in every subcommand, the other
/// accepted as input.
@Suite struct OneContractTests {
    /// A choice matches without regard to case, hyphens or underscores, so no two of one
    /// option's choices may read alike that way.
    @Test func noTwoChoicesOfAnOptionReadAlike() {
        for command in Commands.all {
            for option in command.options {
                guard case .values(let values) = option.completion else { continue }
                let spellings = values.map(ArgumentParser.spelling)
                #expect(Set(spellings).count == values.count, "\(command.name) \(option.names[0]): \(values)")
            }
        }
    }

    @Test func aKindIsReadInEitherSpelling() throws {
        let token = try MintTokenCommandTests.mint(["renewalInfo"])
        for spelling in ["renewalInfo", "renewal-info", "RENEWAL_INFO"] {
            let (status, json) = try MintTokenCommandTests.inspect(token, ["--type", spelling])
            #expect(status == 0 && json["type"] as? String == "renewalInfo", "\(spelling)")
        }
        let refused = InProcess.run(["--type", "renewal-infos", token])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--type must be transaction, renewalInfo, notification"), "\(refused.stderr)")
        // sign and fetch read their kinds through the same function.
        let keys = try SignCommandTests.Keys()
        for spelling in ["api-token", "apiToken", "API_TOKEN"] {
            let signed = InProcess.run([
                "sign", spelling, "--key", keys.path, "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a",
                "--bundle-id", "com.example",
            ])
            #expect(signed.status == 0, "\(spelling): \(signed.stderr)")
        }
        for spelling in ["app-transaction", "appTransaction", "APP_TRANSACTION"] {
            #expect(try FetchOptions.parse([spelling, "2000000000000001"]).kind == .appTransaction, "\(spelling)")
        }
    }

    /// `mint` names the subtype as `fetch` does, `--subtype` accepted for short.
    @Test func mintTakesTheSubtypeByFetchsName() throws {
        for option in ["--notification-subtype", "--subtype"] {
            let token = try MintTokenCommandTests.mint([
                "notification", "--notification-type", "DID_CHANGE_RENEWAL_STATUS", option, "AUTO_RENEW_DISABLED",
            ])
            let (status, json) = try MintTokenCommandTests.inspect(token)
            let payload = try #require(json["payload"] as? [String: Any])
            #expect(status == 0 && payload["subtype"] as? String == "AUTO_RENEW_DISABLED", "\(option)")
        }
    }

    /// Every subcommand that prints results takes `--format table|json|jsonl` and `--json`.
    @Test func everyPrintingSubcommandTakesTheSameFormats() {
        for name in ["inspect", "fetch", "sign", "mint", "verify-offer-v1"] {
            let command = Commands.named(name)!
            let format = command.options.first { $0.names == ["--format"] }
            #expect(format?.value == .choice(["table", "json", "jsonl"]), "\(name)")
            #expect(command.options.contains { $0.names == ["--json"] }, "\(name)")
        }
    }

    @Test func signPrintsEachFormatAndReadsTextAsTable() throws {
        let keys = try SignCommandTests.Keys()
        let base = [
            "api-token", "--key", keys.path, "--issuer-id", SignCommandTests.issuer, "--bundle-id", "com.example.app",
        ]
        for table in [[], ["--format", "table"], ["--format", "text"]] {
            let result = SignCommandTests.sign(base + table)
            #expect(result.status == 0 && result.stdout.split(separator: ".").count == 3, "\(table)")
            #expect(!result.stdout.contains("{") && result.stdout.hasSuffix("\n"), "\(table)")
        }
        let pretty = SignCommandTests.sign(base + ["--format", "json"]).stdout
        let compact = SignCommandTests.sign(base + ["--format", "jsonl"]).stdout
        #expect(pretty.split(separator: "\n").count > 3)
        #expect(
            compact.split(separator: "\n").count == 1
                && compact.hasPrefix(#"{"schemaVersion":1,"record":"token","type":"apiToken","jws":"#))
        for text in [pretty, compact] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["schemaVersion", "record", "type", "jws", "header", "payload"])
        }
    }

    @Test func mintPrintsEachFormat() throws {
        let table = try MintTokenCommandTests.mint(["transaction", "--format", "text"])
        #expect(table.split(separator: ".").count == 3 && !table.contains("{"))
        let pretty = try MintTokenCommandTests.mint(["transaction", "--json"])
        let compact = try MintTokenCommandTests.mint(["transaction", "--format", "jsonl"])
        #expect(pretty.split(separator: "\n").count > 3 && compact.split(separator: "\n").count == 1)
        for text in [pretty, compact] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["schemaVersion", "record", "type", "jws", "header", "payload"])
            #expect(object["type"] as? String == "transaction" && object["record"] as? String == "token")
        }
    }

    /// `--version` and `--help` after any subcommand, before anything it needs is asked for.
    @Test(arguments: Commands.Name.allCases)
    func versionAndHelpAfterAnySubcommand(_ name: Commands.Name) {
        let version = InProcess.run([name.rawValue, "--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("jwsinspect \(HelpText.version) (OpenSSL "), "\(name)")
        #expect(version.stderr.isEmpty, "\(name): \(version.stderr)")
        let help = InProcess.run([name.rawValue, "--help"])
        #expect(help.status == 0 && help.stdout.contains("usage: jwsinspect"), "\(name)")
        let command = Commands.named(name.rawValue)!
        #expect(command.options.contains { $0.names == ["--version"] }, "\(name) documents --version")
    }

    /// Short options as POSIX utilities take them: `-j2`, `-j 2`, and flags run together (`-qj2`).
    @Test func shortOptionsRunTogether() throws {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        for arguments in [["-j2", "-q"], ["-qj2"], ["-qj", "2"], ["-q", "-j", "2"]] {
            let result = InProcess.run(arguments + [sample])
            #expect(result.status == 0 && result.stdout.isEmpty, "\(arguments): \(result.stderr)")
        }
        let (values, _) = try ArgumentParser.parse(["-qj3"], options: InspectOptions.table, into: InspectOptions())
        #expect(values.quiet && values.jobs == 3)
        #expect(InProcess.run(["-qz", sample]).stderr.hasPrefix("jwsinspect: unknown option '-z'"))
        #expect(InProcess.run(["-q-", sample]).stderr.hasPrefix("jwsinspect: unknown option '-q-'"))
        #expect(InProcess.run(["-jx", sample]).stderr.hasPrefix("jwsinspect: --jobs must be a whole number"))
    }

    /// Without its kind, every subcommand that needs one says so on standard error, with its
    /// usage, and exits 64.
    @Test(arguments: ["fetch", "mint", "sign", "completion"])
    func withoutAKindEverySubcommandIsAUsageError(_ name: String) {
        let result = InProcess.run([name])
        #expect(result.status == 64, "\(name)")
        #expect(result.stdout.isEmpty, "\(name)")
        #expect(result.stderr.hasPrefix("jwsinspect: \(name) needs "), "\(name): \(result.stderr)")
        #expect(result.stderr.contains("usage: jwsinspect \(name) "), "\(name): \(result.stderr)")
    }

    /// A usage error of `mint KIND` shows the usage of that kind.
    @Test func aMintUsageErrorShowsItsKindsUsage() {
        let token = InProcess.run(["mint", "renewal-info"]).stderr
        #expect(token.contains("usage: jwsinspect mint transaction|renewalInfo|"), "\(token)")
        let suite = InProcess.run(["mint", "suite"]).stderr
        #expect(suite.contains("usage: jwsinspect mint suite --ca DIR"), "\(suite)")
        let timeline = InProcess.run(["mint", "timeline"]).stderr
        #expect(timeline.contains("usage: jwsinspect mint timeline --ca DIR"), "\(timeline)")
        let ca = InProcess.run(["mint", "ca"]).stderr
        #expect(ca.contains("usage: jwsinspect mint ca --out DIR"), "\(ca)")
        // No kind, or an unknown one: every kind, not `mint ca`'s line as if ca were meant.
        let every =
            "usage: jwsinspect mint ca|transaction|renewalInfo|notification|appTransaction|realtimeRequest|suite|timeline"
        for arguments in [["mint"], ["mint", "bogus"], ["mint", "--ca", "x"]] {
            let stderr = InProcess.run(arguments).stderr
            #expect(stderr.contains(every + " [options] (see jwsinspect help mint)"), "\(arguments): \(stderr)")
        }
    }

    /// A notification type or subtype Apple does not document is refused, with the one meant,
    /// unless asked for on purpose.
    @Test func mintRefusesAnUndocumentedNotificationType() throws {
        for (option, given, meant) in [
            ("--notification-type", "DID_RENEWW", "DID_RENEW"), ("--notification-type", "did_renew", "DID_RENEW"),
            ("--notification-subtype", "BILLING_RECOVERYY", "BILLING_RECOVERY"),
        ] {
            var arguments = ["mint", "notification", "--ca", MintTokenCommandTests.folder.path, option, given]
            if option == "--notification-subtype" { arguments += ["--notification-type", "DID_RENEW"] }
            let refused = InProcess.run(arguments)
            #expect(refused.status == 64, "\(given)")
            #expect(refused.stderr.contains("(did you mean '\(meant)'?)"), "\(refused.stderr)")
            let minted = InProcess.run(arguments + ["--allow-unknown-type"])
            #expect(minted.status == 0, "\(minted.stderr)")
        }
        let token = try MintTokenCommandTests.mint([
            "notification", "--notification-type", "NEW_KIND", "--allow-unknown-type",
        ])
        let (_, json) = try MintTokenCommandTests.inspect(token)
        #expect((json["payload"] as? [String: Any])?["notificationType"] as? String == "NEW_KIND")
    }

    /// Mistakes named: a subcommand one edit off, an option's prefix, pasted tokens, text that is
    /// no file, base64 that is no receipt.
    @Test func mistakesAreNamed() throws {
        for (typed, meant) in [("fecth", "fetch"), ("Fetch", "fetch"), ("minty", "mint"), ("sing", "sign")] {
            let result = InProcess.run([typed, "x"])
            #expect(result.status == 64, "\(typed)")
            #expect(
                result.stderr.hasPrefix(
                    "jwsinspect: '\(typed)' is no file and no subcommand (did you mean '\(meant)'?)"),
                "\(result.stderr)")
        }
        #expect(
            InProcess.run(["--env", "Sandbox"]).stderr.contains(
                "unknown option '--env' (did you mean '--environment'?)"))
        let token = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        for pasted in ["Authorization: Bearer \(token)", "\"\(token)\",", "  '\(token)'  "] {
            #expect(InProcess.run(["-q", pasted]).status == 0, "\(pasted.prefix(30))")
        }
        for text in ["hello world", String(repeating: "a", count: 300), "not \"a\" file"] {
            let result = InProcess.run(["-q", text])
            #expect(result.status == 5, "\(text.prefix(20))")
            #expect(result.stderr.contains("not a file, and not a JWS or receipt: '"), "\(result.stderr)")
        }
        let base64 = "MIIT" + Data((0..<200).map { UInt8($0) }).base64EncodedString()
        let receipt = InProcess.run(["-q", base64])
        #expect(receipt.status == 5 && receipt.stderr.contains("not a valid receipt"), "\(receipt.stderr)")
        // A plausible file name that is missing stays unreadable (66).
        #expect(InProcess.run(["-q", "nosuch.jws"]).status == 66)
        #expect(InProcess.run(["-q", "hello"]).status == 66)
    }

    /// A variable applies where its option does, and a message names it when it was the source:
    /// a stale `JWSINSPECT_KEY_FILE` never stops inspecting App Store data, which needs no key.
    @Test func environmentVariablesAreNamedWhereTheyApply() throws {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        let stale = ["JWSINSPECT_KEY_FILE": "/nonexistent/AuthKey_ABCDE12345.p8"]
        let inspected = InProcess.run(["-q", sample], environment: stale)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(
            inspected.stderr.hasPrefix(
                "jwsinspect: warning: JWSINSPECT_KEY_FILE: cannot read key file '/nonexistent/AuthKey_ABCDE12345.p8'"),
            "\(inspected.stderr)")
        #expect(inspected.stderr.hasSuffix("; inspecting without it\n"))
        // Given on the command line, an unreadable key still stops the run (66).
        #expect(InProcess.run(["-q", "--key", "/nonexistent/AuthKey_ABCDE12345.p8", sample]).status == 66)
        // Where the key is needed, the variable's failure is the run's, and named.
        let signed = InProcess.run(
            ["sign", "api-token", "--issuer-id", SignCommandTests.issuer, "--bundle-id", "com.example.app"],
            environment: stale)
        #expect(signed.status == 66)
        #expect(signed.stderr.hasPrefix("jwsinspect: JWSINSPECT_KEY_FILE: cannot read key file"), "\(signed.stderr)")
        // --help lists the variables that stand in for its options.
        let help = HelpText.of(Commands.sign)
        for variable in ["JWSINSPECT_KEY_FILE", "JWSINSPECT_KEY_ID", "JWSINSPECT_ISSUER_ID", "JWSINSPECT_BUNDLE_ID"] {
            #expect(help.contains("  \(variable)"), "\(variable)")
        }
        #expect(
            !HelpText.main.contains("  JWSINSPECT_BUNDLE_ID"), "inspect's --bundle-id is an expectation, no credential")
    }

    /// Receipts in support words: Sandbox, quoted product IDs, why an entry grants nothing,
    /// and that a receipt is a snapshot at its creation date.
    @Test func receiptsReadInSupportWords() {
        let receipt = CLI.packageRoot.appendingPathComponent("Tests/Vectors/receipts/16-sandbox-gridnote-2017.der").path
        let table = InProcess.run([receipt]).stdout
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].contains(" · Sandbox (test environment: no money charged) · "), "\(lines[0])")
        #expect(
            lines[2]
                == "  App receipt for io.sumi.GridNote 30 (Sandbox, created 2017-06-16), 7 in-app purchases; latest "
                + "subscription \"io.sumi.GridNote.pro.monthly\" expired 2017-06-16: grants no access (as of the "
                + "receipt's creation, 2017-06-16: a later renewal is not in it).")
        // The table, up to the verdict repeated at the end of a long view.
        let rows = lines.drop { !$0.hasPrefix("IN-APP PURCHASES") }.dropFirst(2).prefix { !$0.hasPrefix("VERDICT  ") }
        #expect(lines.last == "VERDICT  " + lines[0])
        #expect(rows.count == 7 && rows.allSatisfy { $0.hasSuffix("  expired") }, "\(rows)")
    }

    /// `--at` as fetch takes its dates (`7d`), and ten digits (seconds) said to be read as milliseconds.
    @Test func atTakesATimeAgoAndWarnsAboutSeconds() throws {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        let ago = InProcess.run(["--at", "7d", "--format", "jsonl", sample])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(ago.stdout.utf8)) as? [String: Any])
        let checkTime = try #require(record["checkTime"] as? [String: Any])
        #expect(checkTime["time"] as? String == ISO8601.string(InProcess.now.addingTimeInterval(-7 * 86_400)))
        #expect(checkTime["basis"] as? String == "--at")
        let seconds = InProcess.run(["-q", "--at", "1667559685", sample])
        #expect(
            seconds.stderr.hasPrefix(
                "jwsinspect: warning: --at 1667559685 is read as milliseconds since 1970 (1970-01-20T07:12:39.685Z); "
                    + "for seconds, give --at 1667559685000"), "\(seconds.stderr)")
        #expect(!InProcess.run(["-q", "--at", "1667559685000", sample]).stderr.contains("warning"))
    }

    /// `--brief`: per item the verdict line and the summary line; JSON keeps every member.
    @Test func briefPrintsTwoLinesAnItem() throws {
        let samples = [
            "transaction-sandbox-2022.jws", "notification-test-sandbox-2025.jws", "receipt-production-2024.der",
        ]
        .map { CLI.packageRoot.appendingPathComponent("Samples/\($0)").path }
        let result = InProcess.run(["--brief"] + samples)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == 6, "\(result.stdout)")
        for (index, line) in lines.enumerated() {
            #expect(index % 2 == 0 ? line.hasPrefix("VALID — ") : line.hasPrefix("  "), "\(line)")
        }
        // For tables alone, as --time-zone: with JSON, a warning, and the JSON unchanged.
        let json = InProcess.run(["--brief", "--json"] + samples)
        #expect(json.status == 0)
        #expect(json.stderr == "jwsinspect: warning: --brief is for tables; --format json prints every member\n")
        #expect(json.stdout == InProcess.run(["--json"] + samples).stdout)
    }

    /// Subcommands are types: every name has exactly one, in the order help lists them, and a
    /// run naming it reaches that one (its own help), never another.
    @Test(arguments: Commands.Name.allCases)
    func everySubcommandDispatchesToItself(_ name: Commands.Name) throws {
        let matching = Commands.registry.filter { $0.name == name }
        #expect(matching.count == 1, "\(name)")
        let subcommand = try #require(matching.first)
        #expect(subcommand.doc.name == name.rawValue)
        let help = InProcess.run([name.rawValue, "--help"])
        #expect(help.status == 0 && help.stdout == HelpText.of(subcommand.doc), "\(name)")
    }

    /// The registry lists every name, in `Name`'s order (`Commands.all`, the docs, is made from it).
    @Test func theRegistryIsTheOneListOfSubcommands() {
        #expect(Commands.registry.map { $0.name.rawValue } == Commands.Name.allCases.map(\.rawValue))
    }

    /// Output formats are renderers behind one protocol, chosen once: each format's renderer
    /// writes what its documentation says, and `--quiet` writes nothing but the summary, in
    /// the format chosen beside it.
    @Test func everyFormatIsOneRenderer() throws {
        let inspection = try VerdictHeadlineTests.inspect(
            try VerdictHeadlineTests.sample("transaction-sandbox-2022.jws"))
        let counts = [(status: "valid", count: 2), (status: "invalid-chain", count: 1)]
        for format in OutputFormat.allCases {
            let renderer = ResultRenderers.make(format: format)
            let result = try #require(renderer.result(inspection), "\(format)")
            let unreadable = renderer.unreadable(source: "gone.txt", reason: "cannot read")
            let summary = renderer.summary(total: 3, counts: counts)
            switch format {
            case .table:
                #expect(renderer is TableOutput && result.hasPrefix("VALID — ") && renderer.separator == "\n")
                #expect(unreadable == nil)
                #expect(summary == "jwsinspect: summary: 3 results: 2 valid, 1 invalid-chain\n")
            case .json, .jsonl:
                #expect(renderer is JSONOutput && renderer.separator == "")
                #expect(
                    result.hasPrefix(format == .json ? "{\n  \"schemaVersion\": 1," : "{\"schemaVersion\":1,"),
                    "\(format)")
                #expect(result.filter { $0 == "\n" }.count == 1 || format == .json)
                #expect(unreadable?.contains("\"status\"") == true && unreadable?.contains("unreadable") == true)
                #expect(
                    summary
                        == #"{"schemaVersion":1,"record":"summary","total":3,"statuses":{"valid":2,"invalid-chain":1}}"#
                        + "\n")
            }
            let quiet = ResultRenderers.make(format: format, quiet: true)
            #expect(quiet is QuietOutput)
            #expect(
                quiet.result(inspection) == nil && quiet.unreadable(source: "gone.txt", reason: "cannot read") == nil)
            #expect(quiet.summary(total: 3, counts: counts) == summary, "\(format)")
        }
        let brief = ResultRenderers.make(format: .table, brief: true)
        #expect(brief is BriefOutput && brief.separator == "")
        #expect(brief.result(inspection)?.split(separator: "\n").count == 2)
    }
}
