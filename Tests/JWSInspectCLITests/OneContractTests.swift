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
        #expect(compact.split(separator: "\n").count == 1 && compact.hasPrefix("{\"jws\":"))
        for text in [pretty, compact] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["jws", "header", "payload"])
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
            #expect(Set(object.keys) == ["jws", "payload"])
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
}
