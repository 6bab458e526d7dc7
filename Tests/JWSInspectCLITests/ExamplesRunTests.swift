import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import TestSupport
import Testing

@testable import JWSInspectCLI

#if canImport(Glibc)
    import Glibc
#endif

/// Every example of `--help` (the man pages show the same `CommandDoc` examples) and every
/// command of the README's `sh` blocks runs here, as written, in a shell, against the bundled
/// samples, a minted CA and a mock App Store Server API, and exits as documented: 0, or the
/// status its documentation names ("# exits 2: …" in the README, `exits` below for help
/// examples, each with why). The harness changes only what a test must not touch: `fetch`
/// is pointed at the mocks (a wrapper adds `--production-url`, `--sandbox-url` and the mocks'
/// `--root`), `curl` does not reach Apple, a completion script is not installed in /etc, and
/// `man` reads with `cat` when the machine has no `man`.
@Suite(.timeLimit(.minutes(10)), .serialized) struct ExamplesRunTests {
    /// The help examples that document a failure, with the status and why.
    static let exits: [String: (Int32, String)] = [
        "notification.json --environment Production --bundle-id com.example.app": (
            4, "the webhook body holds Apple's sample: another app's, in Sandbox (the bundle ID is told first)"
        ),
        "--exact --require-active --account-token \"$UUID\" transaction.jws": (
            4, "Apple's sample transaction carries no appAccountToken: the customer differs"
        ),
        "--bundle-id com.example.app receipt.der": (4, "the real receipt is another app's"),
        "fetch subscriptions 2000000000000010 --require-active": (6, "the mock's subscription expired in 2025"),
    ]

    @Test func everyHelpExampleRuns() throws {
        let workspace = try Workspace()
        var seen = 0
        for command in Commands.all {
            for example in command.examples {
                seen += 1
                var line = CommandDoc.commandLine(example.command)
                // Installing system-wide is the reader's business: the script goes to the workspace.
                line = line.replacingOccurrences(of: "/etc/bash_completion.d/", with: "./")
                if line.hasPrefix("tail -f ") {
                    try workspace.followsALog(line)
                    continue
                }
                // A listener serves until Ctrl-C (`--import` alone does not serve: it runs as any example).
                if line.hasPrefix("jwsinspect listen "), !line.contains(" --import ") {
                    #if JWSINSPECT_LISTEN
                        try workspace.listensUntilInterrupted(line)
                    #else
                        // Built without libmicrohttpd (JWSINSPECT_LISTEN unset: no libmicrohttpd-dev),
                        // jwsinspect-fetch has no HTTP server and such a line exits 69 by design: the
                        // example cannot run here. The builds that have the server run it.
                    #endif
                    continue
                }
                let (status, why) = Self.exits[example.command] ?? (0, "")
                let result = try workspace.shell(line, environment: workspace.credentialVariables)
                #expect(
                    result.status == status,
                    "\(line): exit \(result.status), documented \(status) \(why)\n\(result.stderr.prefix(600))\n\(result.stdout.prefix(1200))"
                )
                #expect(!result.stderr.contains("usage:"), "\(line): \(result.stderr.prefix(300))")
            }
        }
        #expect(seen >= 25)
        // The examples' effects are real: a CA, a suite, saved answers, a completion script.
        for made in ["test-ca/root.der", "suite/manifest.json", "jwsinspect"] {
            #expect(FileManager.default.fileExists(atPath: workspace.path(made)), "\(made)")
        }
        let saved = try FileManager.default.contentsOfDirectory(atPath: workspace.path("answers"))
        #expect(saved.contains { $0.hasPrefix("history-2000000000000010-Production") }, "\(saved)")
    }

    /// The pages whose `sh` blocks run here: the README and every page of docs/ but the
    /// install page (its blocks install a release: ReleaseTests runs them) and the threat
    /// model (its `ldd` and `strace` examine an installed release: ReleaseTests checks its lists).
    static let documents: [String] = {
        let docs =
            (try? FileManager.default.contentsOfDirectory(
                atPath: CLI.packageRoot.appendingPathComponent("docs").path)) ?? []
        return ["README.md"]
            + docs.filter { $0.hasSuffix(".md") && !["install.md", "threat-model.md"].contains($0) }.sorted().map {
                "docs/" + $0
            }
    }()

    /// A page's `sh` blocks but the quick start (`make run`, `make test`: what CI runs), the
    /// README's Install section and, without GNU parallel, its recipe, read in order in one shell
    /// as a reader's session (what one block exports, the next has), each block in a folder of
    /// its own; each command's status checked against its comment. The session runs twice in the
    /// same folders, as a reader who runs an example again would: an example that cannot run
    /// twice (a CA minted again into the same folder) fails the second time. And the checkout is
    /// as it was: no example writes in it.
    @Test(arguments: documents)
    func everyDocumentedCommandRunsTwice(_ document: String) throws {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let install = Self.section(of: text, headed: "## Install")
        let blocks = Self.shellBlocks(text).filter {
            !$0.text.hasPrefix("make ") && (GNUParallel.path != nil || !$0.text.contains("| parallel "))
                && !install.contains($0.line)
        }
        let before = try Self.checkoutStatus()
        let workspace = try Workspace()
        var commands = 0
        for run in 1...2 {
            var session = ""
            for block in blocks {
                let script = try Self.checkedScript(block.text, line: block.line, label: "\(document) (run \(run))")
                if run == 1 { commands += script.commands }
                let folder = "\"$W/block-\(block.line)\""
                session +=
                    "mkdir -p \(folder) && cd \(folder) && ln -sfn \"$W/Samples\" \"$W/.build\" "
                    + "\"$W/AuthKey_2X9R4HXF34.p8\" \"$W/request.json\" . || exit 99\n" + script.text + "cd \"$W\"\n"
            }
            let result = try workspace.shell("W=\"$PWD\"\n" + session, environment: [:])
            #expect(result.status == 0, "\(document), run \(run): exit \(result.status)\n\(result.stderr.suffix(1500))")
            let failures = result.stderr.split(separator: "\n").filter { $0.hasPrefix(document + " ") }
            #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(result.stderr.prefix(4000))")
        }
        #expect(blocks.isEmpty || commands > 0, "\(document): blocks without a command")
        #expect(try Self.checkoutStatus() == before, "\(document)'s examples changed the checkout")
    }

    /// `git status --porcelain` of the checkout (nil where it is not a git checkout).
    static func checkoutStatus() throws -> String? {
        guard FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent(".git").path) else {
            return nil
        }
        let git = ["/usr/bin/git", "/bin/git"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let git else { return nil }
        return try CLI.runProgram(git, ["-C", CLI.packageRoot.path, "status", "--porcelain"]).stdout
    }

    /// The README's "How do I…" table: each task's command runs as written, in the workspace
    /// (whose files the README names), and exits as the row says ("exits 6"), else 0.
    @Test func everyTaskOfTheReadmeRuns() throws {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = Self.section(of: readme, headed: "## How do I…")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let rows = section.compactMap { index -> String? in
            index - 1 < lines.count && lines[index - 1].hasPrefix("| ") ? String(lines[index - 1]) : nil
        }.dropFirst(2)
        #expect(rows.count >= 11)
        let workspace = try Workspace()
        for row in rows {
            let cells = row.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|")
            let cell = cells[1].replacingOccurrences(of: "\u{1}", with: "|")
            let ticked = cell.split(separator: "`", omittingEmptySubsequences: false)
            let command = try #require(ticked.count >= 2 ? String(ticked[1]) : nil, "\(row)")
            let status = cell.firstMatch(of: /exits (\d+)/).flatMap { Int32($0.1) } ?? 0
            let result = try workspace.shell(command, environment: workspace.credentialVariables)
            #expect(result.status == status, "\(command): exit \(result.status)\n\(result.stderr.prefix(600))")
            #expect(command.contains(" -q ") || !result.stdout.isEmpty, "\(command) printed nothing")
        }
    }

    // MARK: The README's blocks

    struct Block {
        let line: Int
        let text: String
    }

    /// The lines (numbered from 1) of the section under `heading`, up to the next heading of
    /// its level or above.
    static func section(of readme: String, headed heading: String) -> Range<Int> {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == heading }) else { return 0..<0 }
        let level = heading.prefix { $0 == "#" }.count
        var fenced = false
        for index in (start + 1)..<lines.count {
            let line = lines[index]
            if line.hasPrefix("```") { fenced.toggle() }
            let marks = line.prefix { $0 == "#" }.count
            if !fenced, marks > 0, marks <= level, line.dropFirst(marks).hasPrefix(" ") {
                return (start + 1)..<(index + 1)
            }
        }
        return (start + 1)..<(lines.count + 1)
    }

    /// The README's fenced `sh` blocks, with the line each starts at.
    static func shellBlocks(_ readme: String) -> [Block] {
        var blocks: [Block] = []
        var current: [String]?
        var start = 0
        for (index, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if current == nil, line == "```sh" {
                current = []
                start = index + 2
            } else if let lines = current, line == "```" {
                blocks.append(Block(line: start, text: lines.joined(separator: "\n")))
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return blocks
    }

    /// The block as a script that checks each command's status: the one a comment names
    /// ("# exit 6", "# exits 2: …"), else 0. A command is as many lines as the shell needs to
    /// read it whole (`bash -n` decides: continuations, a loop, an array).
    static func checkedScript(_ block: String, line first: Int, label: String = "README")
        throws -> (text: String, commands: Int)
    {
        var script = ""
        var pending: [String] = []
        var pendingStart = first
        var commands = 0
        for (offset, line) in block.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if pending.isEmpty {
                pendingStart = first + offset
                if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            }
            pending.append(String(line))
            // `bash -n` reads a trailing backslash as a character: the command goes on.
            if line.hasSuffix("\\") { continue }
            let text = pending.joined(separator: "\n")
            guard try CLI.runProgram("/bin/bash", ["-n", "-c", text]).status == 0 else { continue }
            let expected = Self.documentedStatus(text)
            commands += 1
            script += text + "\n"
            script +=
                "status=$?; [ $status -eq \(expected) ] || echo \"\(label) line \(pendingStart): exit $status, "
                + "documented \(expected)\" >&2\n"
            pending = []
        }
        #expect(pending.isEmpty, "\(label) line \(pendingStart): an unfinished command")
        return (script, commands)
    }

    /// "# exit 6 when …" or "# exits 2: …" in a command's comment; 0 when none.
    static func documentedStatus(_ command: String) -> Int32 {
        guard let match = command.firstMatch(of: /#\s*exits?\s+(\d+)/) else { return 0 }
        return Int32(match.1) ?? -1
    }

    // MARK: The workspace

    /// A folder laid out as the examples expect, the mocks answering for Apple, and a shell.
    final class Workspace {
        let directory: URL
        let key = MockAPIKey(bundleID: "com.example.app")
        let production: MockAppStoreServer
        let sandbox: MockAppStoreServer
        /// The mocks' signing chain, its leaf valid a year either side of now (FetchHarness's
        /// is fixed in 2024-2025, as its mocks' clock is; these mocks run on the real clock,
        /// as `--since 7d` does).
        static let chain = AppleShapedChain(
            leafNotBefore: Date().addingTimeInterval(-365 * 86_400),
            leafNotAfter: Date().addingTimeInterval(365 * 86_400))
        /// What the help examples' "$UUID", "$NONCE", … stand for.
        var variables: [String: String] = [:]

        init() throws {
            directory = try CLI.temporaryDirectory()
            let now = Date()
            production = try MockAppStoreServer(
                environment: "Production", credentials: key.credentials, now: now, chain: Self.chain)
            sandbox = try MockAppStoreServer(
                environment: "Sandbox", credentials: key.credentials, now: now, chain: Self.chain, seed: false)
            try Self.seed(production, now: now)
            try lay()
        }

        deinit {
            production.stop()
            sandbox.stop()
        }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        private func write(_ name: String, _ bytes: [UInt8], mode: Int = 0o644) throws {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        }

        private func write(_ name: String, _ text: String, mode: Int = 0o644) throws {
            try write(name, Array(text.utf8), mode: mode)
        }

        /// The IDs the documentation uses, as a customer of the mock: a monthly subscription
        /// (2000000000000010, expired), a refunded purchase, its app transaction, the order
        /// MQ7TYF9XYZ, and a notification that did not arrive yesterday.
        static func seed(_ mock: MockAppStoreServer, now: Date) throws {
            let day = 86_400.0
            mock.addTransaction(
                MockTransaction(
                    transactionId: "2000000000000010", originalTransactionId: "2000000000000010", customer: "D",
                    productId: "pro.monthly", type: .autoRenewable, purchaseDate: now.addingTimeInterval(-60 * day),
                    expiresDate: now.addingTimeInterval(-30 * day), subscriptionGroupIdentifier: "21482399",
                    webOrderLineItemId: "200000000000310", autoRenewStatus: 0))
            mock.addTransaction(
                MockTransaction(
                    transactionId: "2000000000000011", originalTransactionId: "2000000000000011", customer: "D",
                    productId: "com.example.lifetime", type: .nonConsumable,
                    purchaseDate: now.addingTimeInterval(-50 * day),
                    revocationDate: now.addingTimeInterval(-40 * day), revocationReason: 0))
            mock.addAppTransaction(
                MockAppTransaction(
                    customer: "D", appTransactionId: "700000000000009",
                    originalPurchaseDate: now.addingTimeInterval(-90 * day)))
            mock.addOrder("MQ7TYF9XYZ", transactionIDs: ["2000000000000010", "2000000000000011"])
            mock.addNotification(
                MockNotification(
                    notificationType: "DID_RENEW", subtype: nil,
                    notificationUUID: "6b4b8c1e-2f1a-4f0e-9d53-3c0b1a2e4f10",
                    signedDate: now.addingTimeInterval(-day), transactionId: "2000000000000010",
                    sendAttempts: [.init(date: now.addingTimeInterval(-day), result: "NO_RESPONSE")]))
        }

        /// The files the examples name, the wrapper that points `fetch` at the mocks, and the
        /// values the examples' variables hold.
        private func lay() throws {
            let samples = CLI.packageRoot.appendingPathComponent("Samples")
            func sample(_ name: String) throws -> String {
                try String(contentsOf: samples.appendingPathComponent(name), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let subscribed = try sample("notification-subscribed-sandbox-2025.jws")
            let test = try sample("notification-test-sandbox-2025.jws")
            let old = try sample("transaction-sandbox-2022.jws")
            // Apple's 2025 transaction (its leaf valid until 2027), nested in the SUBSCRIBED sample.
            let transaction = try Self.nested(subscribed, "signedTransactionInfo")
            try write("transaction.jws", transaction + "\n")
            try write("token.jws", old + "\n")
            try write("notification.json", #"{"signedPayload":"\#(subscribed)"}"#)
            try write(
                "webhooks.log", #"{"signedPayload":"\#(subscribed)"}"# + "\n" + #"{"signedPayload":"\#(test)"}"# + "\n")
            // What `fetch notifications --since 7d --save apple` keeps: a Get Notification History
            // answer, here holding Apple's two sample notifications (one never answered).
            try write(
                "apple/notifications-Production-page-1.json",
                #"{"notificationHistory":[{"sendAttemptResults":[{"attemptDate":1748736000000,"#
                    + #""sendAttemptResult":"NO_RESPONSE"}],"signedPayload":"\#(subscribed)"},{"sendAttemptResults":"#
                    + #"[{"attemptDate":1748736000000,"sendAttemptResult":"SUCCESS"}],"signedPayload":"\#(test)"}],"#
                    + #""hasMore":false,"paginationToken":"57e0a3ee-1c3b-4b5e-8ae1-0f3ac6c0ce5d"}"#)
            try write(
                "history.json",
                #"{"revision":"x","bundleId":"com.loki-project.loki-messenger","hasMore":false,"signedTransactions":["\#(old)","\#(transaction)"]}"#
            )
            try write(
                "receipt.der",
                Array(try Data(contentsOf: samples.appendingPathComponent("receipt-production-2024.der"))))
            try write("transaction-receipt.b64", try sample("storekit1-transaction-receipt.b64") + "\n")
            try write(
                "request.json",
                #"{"operation":"CREATE_SUBSCRIPTION","version":"1","requestInfo":{"requestReferenceId":"d1c3c5a8-5a1b-4e62-8f0f-2b1c4d5e6f70"},"#
                    + #""currency":"USD","descriptors":{"description":"Pro monthly","displayName":"Pro"},"items":[{"SKU":"#
                    + #""pro.monthly","description":"Pro monthly","displayName":"Pro","price":9990}],"taxCode":"C003-00-2","#
                    + #""period":"P1M"}"#
            )
            // StoreKit Testing in Xcode: its certificate, and a transaction it signed in 2023.
            let xcode = TestPKI.issue(
                CertificateSpec(
                    commonName: "StoreKit Testing in Xcode", notBefore: Date(timeIntervalSince1970: 1_697_000_000),
                    notAfter: Date(timeIntervalSince1970: 1_728_536_000), isCA: false, keyIdentifiers: false),
                issuer: nil)
            try write("StoreKitTestCertificate.cer", xcode.der)
            let payload =
                #"{"transactionId":"0","productId":"pro","expiresDate":1697679936054,"signedDate":1697679936054}"#
            let header = #"{"alg":"ES256","kid":"Apple_Xcode_Key","typ":"JWT","x5c":["\#(xcode.base64)"]}"#
            try write(
                "xcode-transaction.jws", TestPKI.compactJWS(headerJSON: header, payloadJSON: payload, key: xcode.key))
            // The In-App Purchase key, as downloaded, beside the examples and in ~/keys.
            try write("AuthKey_2X9R4HXF34.p8", key.pem, mode: 0o600)
            try write("home/keys/AuthKey_2X9R4HXF34.p8", key.pem, mode: 0o600)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path("home"))
            try write("mocks-root.der", Self.chain.root.der)
            // `jwsinspect` on the PATH and as the README's .build/release/jwsinspect; fetch asks the mocks.
            let real = CLI.executable.path
            try write(
                "bin/jwsinspect",
                """
                #!/bin/sh
                if [ "$1" = fetch ]; then
                  exec '\(real)' "$@" --production-url '\(production.baseURL)' --sandbox-url '\(sandbox.baseURL)' \\
                    --root '\(path("mocks-root.der"))'
                fi
                exec '\(real)' "$@"

                """, mode: 0o755)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(".build/release"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: path(".build/release/jwsinspect"), withDestinationPath: path("bin/jwsinspect"))
            try FileManager.default.createSymbolicLink(atPath: path("Samples"), withDestinationPath: samples.path)

            variables = [
                "UUID": "7e3fb20b-4cdb-47cc-936d-99d65f608138", "ACCOUNT_TOKEN": "4c6f0d2e-8b3a-4e51-9e7b-1d2c3b4a5f60",
                "NONCE": "20fba8a0-2b80-4a7d-a17f-85c1854727f8", "ISSUER_ID": key.issuerID, "ISSUER": key.issuerID,
            ]
            // The signatures the examples check: made by `sign`, as a backend would.
            let offer = try shell(
                "jwsinspect sign promotional-offer-v1 --key AuthKey_2X9R4HXF34.p8 --bundle-id com.example.app "
                    + "--product-id pro.monthly --offer-id WINBACK --application-username \"$ACCOUNT_TOKEN\" "
                    + "--nonce \"$NONCE\" --timestamp 1698148900000", environment: [:])
            variables["SIGNATURE"] = offer.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let jws = try shell(
                "jwsinspect sign promotional-offer --key AuthKey_2X9R4HXF34.p8 --issuer-id \"$ISSUER_ID\" "
                    + "--bundle-id com.example.app --product-id pro.monthly --offer-id WINBACK", environment: [:])
            variables["OFFER_JWS"] = jws.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(offer.status == 0 && jws.status == 0, "\(offer.stderr) \(jws.stderr)")
        }

        /// The help's "credentials from JWSINSPECT_* variables".
        var credentialVariables: [String: String] {
            [
                "JWSINSPECT_KEY_FILE": path("AuthKey_2X9R4HXF34.p8"), "JWSINSPECT_ISSUER_ID": key.issuerID,
                "JWSINSPECT_BUNDLE_ID": "com.example.app",
            ]
        }

        static func nested(_ notification: String, _ member: String) throws -> String {
            let segment = String(notification.split(separator: ".")[1])
            let payload = try Base64URL.decode(Array(segment.utf8))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
            let data = try #require(object["data"] as? [String: Any])
            return try #require(data[member] as? String)
        }

        /// The shell a reader types into: bash in the workspace, `jwsinspect` on the PATH, and
        /// no signal blocked (`ChildProcess` starts every process so: `kill` can stop what the
        /// README starts in the background).
        func shell(_ script: String, environment extra: [String: String]) throws -> CLI.Result {
            CLI.Result(
                try ChildProcess.run(
                    "/bin/bash", ["-c", Self.prelude + script], environment: environment(extra), directory: directory,
                    timeout: .seconds(120)))
        }

        private func environment(_ extra: [String: String]) -> [String: String] {
            var environment = ProcessInfo.processInfo.environment.filter {
                !$0.key.hasPrefix("JWSINSPECT_") && $0.key != "NO_COLOR" && $0.key != "TZ"
            }
            environment["PATH"] = path("bin") + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["HOME"] = path("home")
            environment["MANPAGER"] = "cat"
            environment["PAGER"] = "cat"
            environment.merge(variables) { $1 }
            environment.merge(extra) { $1 }
            return environment
        }

        /// What the reader's machine has that a test's must not do: reach Apple with curl, or
        /// lack `man` (then `cat` reads the page). `pbpaste` pastes the transaction.
        static let prelude = """
            curl() { printf 'curl (not run in tests): %s\\n' "$*" >&2; }
            command -v man >/dev/null 2>&1 || man() { cat >/dev/null; }
            pbpaste() { cat transaction.jws; }

            """

        #if JWSINSPECT_LISTEN
            /// `jwsinspect listen …`: a server that runs until Ctrl-C. It runs as written but on a
            /// port the system chooses (`--listen 127.0.0.1:0` in place of the example's, or
            /// added), started by `exec` so that the shell's process is the listener's; once
            /// standard error says where it receives, SIGINT (what Ctrl-C sends), and it must exit
            /// 0 with its counts said.
            func listensUntilInterrupted(_ line: String) throws {
                let ephemeral = "--listen 127.0.0.1:0"
                let command =
                    line.contains("--listen ")
                    ? line.replacing(/--listen \S+/, with: ephemeral) : line + " " + ephemeral
                let child = try ChildProcess(
                    "/bin/bash", ["-c", Self.prelude + "exec " + command],
                    environment: environment(credentialVariables), directory: directory, timeout: .seconds(60))
                let serving = try child.waitForOutput(within: .seconds(30)) { _, stderr -> String? in
                    let text = String(decoding: stderr, as: UTF8.self)
                    return text.contains("receiving App Store Server Notifications at ") ? text : nil
                }
                kill(child.pid, SIGINT)
                let result = try child.finish()
                #expect(
                    result.status == 0,
                    "\(command): exit \(result.status) after SIGINT\n\(serving)\n\(result.stderrText.prefix(600))")
                #expect(result.stderrText.contains(" received: "), "\(command): no counts\n\(result.stderrText)")
                #expect(!result.stderrText.contains("usage:"), "\(command): \(result.stderrText.prefix(300))")
            }
        #endif

        /// `tail -f webhooks.log | jwsinspect --format jsonl`: each record shows while tail
        /// still waits for more. The pipeline never ends by design: it runs as a job of its own
        /// (its own process group), killed once both records have come, or after 60 s.
        func followsALog(_ line: String) throws {
            let script = """
                set -m
                ( \(line) ) > follow.out 2>/dev/null &
                job=$!
                tries=0
                while [ $tries -lt 600 ]; do
                  lines=$(wc -l < follow.out)
                  [ "$lines" -ge 2 ] && break
                  sleep 0.1
                  tries=$((tries + 1))
                done
                following=no
                kill -0 "$job" 2>/dev/null && following=yes
                kill -KILL -- -"$job"
                echo "$lines $following"
                """
            let result = try shell(script, environment: [:])
            #expect(
                result.stdout.split(whereSeparator: \.isWhitespace) == ["2", "yes"],
                "\(line): \(result.stdout) \(result.stderr)")
        }
    }
}
