import Foundation
import StrictJSONParser
import Testing

@testable import JWSInspectCLI

/// The output options are one group (`OutputOptions`), declared once: each subcommand takes
/// the ones it honours, and they behave the same wherever they are taken; one it does not take
/// is refused (exit 64), naming those it does.
@Suite("output options: one group", .timeLimit(.minutes(10)))
struct OutputGroupTests {
    /// The output options in a table (long and short names).
    static func outputNames<Values>(_ table: [OptionSpec<Values>]) -> Set<String> {
        Set(table.flatMap(\.doc.names)).intersection(OutputOptions.names)
    }

    @Test("each subcommand takes the output options it honours, declared by the group")
    func eachSubcommandTakesItsOwn() {
        let all = OutputOptions.names
        #expect(
            all == [
                "--format", "--json", "--quiet", "-q", "--brief", "--time-zone", "--redact", "--summary",
                "--color", "--no-color",
            ])
        #expect(Self.outputNames(InspectOptions.table) == all)
        #expect(Self.outputNames(FetchOptions.table) == all)
        #expect(Self.outputNames(TimelineOptions.table) == all)
        #expect(
            Self.outputNames(VerifyOfferV1Options.table) == [
                "--format", "--json", "--quiet", "-q", "--color", "--no-color",
            ])
        #expect(Self.outputNames(SignOptions.table) == ["--format", "--json", "--quiet", "-q"])
        #expect(Self.outputNames(MintOptions.table) == ["--format", "--json", "--quiet", "-q"])
        // --help and --version everywhere, from the one declaration.
        for names in [
            InspectOptions.table.flatMap(\.doc.names), FetchOptions.table.flatMap(\.doc.names),
            TimelineOptions.table.flatMap(\.doc.names), SignOptions.table.flatMap(\.doc.names),
            MintOptions.table.flatMap(\.doc.names), VerifyOfferV1Options.table.flatMap(\.doc.names),
            CompletionOptions.table.flatMap(\.doc.names), HelpOptions.table.flatMap(\.doc.names),
        ] {
            #expect(Set(["--help", "-h", "--version"]).isSubset(of: Set(names)))
        }
    }

    @Test(
        "one not taken is refused at parse time, naming those taken",
        arguments: [
            ["sign", "api-token", "--summary"], ["mint", "transaction", "--time-zone", "local"],
            ["verify-offer-v1", "--brief"], ["mint", "transaction", "--redact"],
        ])
    func oneNotTakenIsRefused(_ arguments: [String]) {
        let result = InProcess.run(arguments)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "jwsinspect: \(arguments.first { $0.hasPrefix("--") } ?? "") is not taken here: of the "
                    + "output options, this subcommand takes --format, --json"), "\(result.stderr)")
    }

    @Test("-q prints nothing and keeps the exit status: sign, mint, verify-offer-v1")
    func quietEverywhere() throws {
        let keys = try SignCommandTests.Keys()
        let sign = [
            "sign", "api-token", "--key", keys.path, "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a",
            "--bundle-id", "com.example",
        ]
        let loud = InProcess.run(sign)
        #expect(loud.status == 0 && !loud.stdout.isEmpty)
        for format in [[String](), ["--format", "jsonl"]] {
            let quiet = InProcess.run(sign + ["-q"] + format)
            #expect(quiet.status == 0 && quiet.stdout.isEmpty, "\(format)")
        }
        let minted = InProcess.run(["mint", "transaction", "-q", "--ca", MintTokenCommandTests.folder.path])
        #expect(minted.status == 0 && minted.stdout.isEmpty, "\(minted.stderr)")
        let signature = try VerifyOfferV1Tests.signature(keys)
        let verified = InProcess.run(
            ["verify-offer-v1", "-q", "--key", keys.path] + VerifyOfferV1Tests.fields() + [signature])
        #expect(verified.status == 0 && verified.stdout.isEmpty)
        let refused = InProcess.run(
            ["verify-offer-v1", "-q", "--key", keys.path] + VerifyOfferV1Tests.fields(offer: "x") + [signature])
        #expect(refused.status == 1 && refused.stdout.isEmpty)
    }

    @Test("timeline: --summary counts its items by status, --color colours its tables")
    func timelineTakesSummaryAndColor() throws {
        let log = TimelineCommandTests.path("webhooks.jsonl")
        let table = TimelineCommandTests.timeline(["--summary", log, "nosuch.jsonl"])
        #expect(table.status == 66)
        #expect(table.stderr.hasSuffix("jwsinspect: summary: 7 results: 6 valid, 1 unreadable\n"), "\(table.stderr)")
        let json = TimelineCommandTests.timeline(["--summary", "--format", "jsonl", "-q", log])
        #expect(json.status == 0 && json.stdout.isEmpty)
        let summary = try #require(try StrictJSON.lines(json.stderr).last)
        #expect(summary["record"] as? String == "summary" && summary["total"] as? Double == 6)
        let colored = TimelineCommandTests.timeline(["--color", log])
        #expect(colored.stdout.contains("\u{1b}[32;1mgrants access until"), "\(colored.stdout.prefix(300))")
        #expect(colored.stdout.contains("\u{1b}[33;1m! duplicate\u{1b}[0m"))
        for plain in [["--no-color"], ["--color=never"], []] {
            let text = TimelineCommandTests.timeline(plain + [log]).stdout
            #expect(!text.contains("\u{1b}"), "\(plain)")
            #expect(text == TimelineCommandTests.timeline([log]).stdout)
        }
    }

    @Test("per-kind options are typed: sign's claims and fetch's filters, each declared with its kinds")
    func perKindOptionsAreTyped() throws {
        // Every claim is an option of sign's table, and every kind takes what it needs.
        let signNames = Set(SignOptions.table.map { $0.doc.names[0] })
        #expect(Set(SignOptions.Claim.allCases.map(\.rawValue)).isSubset(of: signNames))
        for kind in SignOptions.Kind.allCases {
            #expect(Set(kind.required).isDisjoint(with: kind.optional), "\(kind)")
        }
        #expect(throws: UsageError("sign api-token does not take --product-id")) {
            try SignOptions.parse(["api-token", "--product-id", "p"])
        }
        #expect(throws: UsageError("sign promotional-offer needs --offer-id")) {
            try SignOptions.parse(["promotional-offer", "--product-id", "p"])
        }
        // A filter is refused by another kind, naming the kind it is for.
        #expect(throws: UsageError("--status is for fetch subscriptions, not fetch history")) {
            try FetchOptions.parse(["history", "2000000000000001", "--status", "1"])
        }
        #expect(throws: UsageError("--wait is for fetch test-notification, not fetch notifications")) {
            try FetchOptions.parse(["notifications", "--since", "7d", "--wait", "3"])
        }
        #expect(try FetchOptions.parse(["subscriptions", "2000000000000001", "--status", "1"]).statuses == [1])
    }
}
