import Foundation
import JWSInspectCore
import Testing

@testable import JWSInspectCLI

/// What is generated from the option tables (help, man page, completions) and what the README
/// says, checked against the code; and golden files of `--help`, one table and one JSON rendering.
@Suite(.timeLimit(.minutes(10))) struct DocumentationTests {
    // MARK: Goldens

    /// Compares `text` with the golden file; with JWSINSPECT_UPDATE_GOLDENS=1 in the
    /// environment, rewrites the file instead (then review the change with `git diff`).
    static func expectGolden(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = CLI.packageRoot.appendingPathComponent("Tests/JWSInspectCLITests/Goldens/\(name)")
        if ProcessInfo.processInfo.environment["JWSINSPECT_UPDATE_GOLDENS"] == "1" {
            try Data(text.utf8).write(to: url)
            return
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        let comment: Comment =
            "\(name) differs from its golden file (update: JWSINSPECT_UPDATE_GOLDENS=1 swift test --filter DocumentationTests)"
        #expect(text == golden, comment, sourceLocation: sourceLocation)
    }

    static let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path

    @Test func helpGolden() throws {
        try Self.expectGolden(InProcess.run(["--help"]).stdout, "help.txt")
    }

    @Test func tableGolden() throws {
        let result = InProcess.run([Self.sample])
        try Self.expectGolden(
            result.stdout.replacingOccurrences(of: CLI.packageRoot.path + "/", with: ""), "table-transaction.txt")
    }

    @Test func jsonGolden() throws {
        let result = InProcess.run(["--json", Self.sample])
        try Self.expectGolden(
            result.stdout.replacingOccurrences(of: CLI.packageRoot.path + "/", with: ""), "json-transaction.json")
    }

    /// The completion scripts, each subcommand's help and the man page, as swift-argument-parser
    /// snapshot-tests its generated scripts: a change to any is reviewed as a diff.
    @Test(arguments: CompletionOptions.Shell.allCases)
    func completionGolden(_ shell: CompletionOptions.Shell) throws {
        try Self.expectGolden(InProcess.run(["completion", shell.rawValue]).stdout, "completion.\(shell.rawValue)")
    }

    @Test(arguments: Commands.Name.allCases)
    func subcommandHelpGolden(_ name: Commands.Name) throws {
        try Self.expectGolden(InProcess.run(["help", name.rawValue]).stdout, "help-\(name.rawValue).txt")
    }

    @Test func manPageGolden() throws {
        try Self.expectGolden(InProcess.run(["help", "--man"]).stdout, "jwsinspect.1")
    }

    /// One page per subcommand, as `make install` installs them (`MANPAGES`), each cross-referenced.
    @Test(arguments: ManPageTests.pages)
    func subcommandManPageGolden(_ name: String) throws {
        let page = InProcess.run(["help", name, "--man"]).stdout
        try Self.expectGolden(page, "jwsinspect-\(name).1")
        #expect(page.hasPrefix(".TH JWSINSPECT-\(name.uppercased()) 1 \"\(HelpText.versionDate)\" \"jwsinspect "))
        #expect(page != ManPage.text)
        for other in ManPageTests.pages where other != name {
            #expect(page.contains("\\fB\(ManPage.escape("jwsinspect-" + other))\\fR(1)"), "\(name) lacks \(other)")
            #expect(ManPage.text.contains("\\fB\(ManPage.escape("jwsinspect-" + other))\\fR(1)"))
        }
    }

    // MARK: Help, man page and README agree with the code

    /// Every option of every subcommand is in its help, the man page and every completion script.
    @Test func everyOptionIsDocumentedEverywhere() {
        let man = ManPage.text
        for command in Commands.all {
            let help = HelpText.of(command)
            for option in command.options {
                for name in option.names {
                    #expect(help.contains(name), "\(command.name) help lacks \(name)")
                    #expect(CompletionScripts.bash.contains(name), "bash lacks \(name)")
                    #expect(CompletionScripts.zsh.contains(name), "zsh lacks \(name)")
                    let fishName = name.hasPrefix("--") ? "-l \(name.dropFirst(2))" : "-s \(name.dropFirst())"
                    #expect(CompletionScripts.fish.contains(fishName), "fish lacks \(name)")
                }
                // Each subcommand's own page has every option it takes (the top page, inspect's).
                let page = ManPage.text(for: command)
                #expect(
                    page.contains(ManPage.escape(option.synopsis)), "\(command.name)'s page lacks \(option.names[0])")
            }
            #expect(man.contains("\\fB\(ManPage.escape(command.name))\\fR"), "man lacks \(command.name)")
        }
    }

    @Test func exitStatusesAreTheSameInHelpManPageAndDocs() throws {
        let help = HelpText.main
        let man = ManPage.text
        let page = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("docs/exit-status.md"), encoding: .utf8)
        // The page's table: "| 5 | meaning |" rows under its title.
        let section = try #require(page.components(separatedBy: "# Exit statuses").dropFirst().first)
        var rows: [Int32: String] = [:]
        for line in section.split(separator: "\n").prefix(while: { !$0.hasPrefix("#") }) where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count == 2, let code = Int32(cells[0]) {
                rows[code] = cells[1].replacingOccurrences(of: "`", with: "")
            }
        }
        #expect(Set(rows.keys) == Set(ExitStatus.allCases.map(\.rawValue)))
        for status in ExitStatus.allCases {
            #expect(rows[status.rawValue] == status.meaning, "docs/exit-status.md's exit \(status.rawValue)")
            let wrapped = HelpText.wrap(status.meaning, width: HelpText.width - 6).joined(separator: " ")
            #expect(
                help.replacingOccurrences(of: "\n      ", with: " ").contains(
                    "\(status.rawValue)"
                        + String(
                            repeating: " ",
                            count: 4 - "\(status.rawValue)".count) + wrapped), "help's exit \(status.rawValue)")
            #expect(
                man.contains(".TP\n\\fB\(status.rawValue)\\fR\n\(ManPage.escape(status.meaning + "."))"),
                "man's exit \(status.rawValue)")
        }
    }

    /// The man page has the conventional sections.
    /// Every example of `--help` and the man pages is a command the parser takes as written
    /// (after the shell's quoting): no option or value it would refuse, no subcommand that is none.
    @Test func everyExampleParses() throws {
        for command in Commands.all {
            for example in command.examples {
                let line = CommandDoc.commandLine(example.command)
                let start = try #require(line.range(of: "jwsinspect "), "\(line)")
                let invocation = String(line[start.upperBound...]).components(separatedBy: " | ")[0]
                    .components(separatedBy: " && ")[0]
                // The variables an example names, set as a reader's shell would have them.
                let script =
                    "pbpaste() { printf 'eyJ.e30.x'; }; UUID=7e3fb20b-4cdb-47cc-936d-99d65f608138; "
                    + "ISSUER_ID=57246542-96fe-1a63-e053-0824d011072a; ACCOUNT_TOKEN=$UUID; "
                    + "NONCE=20fba8a0-2b80-4a7d-a17f-85c1854727f8; SIGNATURE=MEYCIQC+MK/pFE2CoXWUK5xmHwtZZXNrbI1Cu1N1NpdbKAZzzgIhAPKsoBJqpxAl8NlQLHZa4ebuPJBq9HAMdGTt2LNj87tc; set -- \(invocation); "
                    + "for a; do printf '%s\\n' \"$a\"; done"
                let words = try CLI.runProgram("/bin/sh", ["-c", script]).stdout.split(separator: "\n").map(String.init)
                #expect(!words.isEmpty, "\(line)")
                let (name, rest) = Command.subcommand(of: words)
                #expect(name.rawValue == command.name, "\(line) is an example of \(command.name)")
                do throws(UsageError) {
                    switch name {
                    case .inspect: _ = try InspectOptions.parse(rest)
                    case .fetch: _ = try FetchOptions.parse(rest)
                    case .listen: _ = try ListenOptions.parse(rest)
                    case .sign: _ = try SignOptions.parse(rest)
                    case .mint: _ = try MintOptions.parse(rest)
                    case .timeline: _ = try TimelineOptions.parse(rest)
                    case .verifyOfferV1: _ = try VerifyOfferV1Options.parse(rest)
                    case .completion: _ = try CompletionOptions.parse(rest)
                    case .help: _ = try HelpOptions.parse(rest)
                    }
                } catch {
                    Issue.record("\(line): \(error.message)")
                }
                #expect(!line.hasPrefix("jwsinspect tail "), "a pipeline names jwsinspect itself")
            }
        }
    }

    /// docs/output.md's JSON table: its keys are the records' keys in order, and its `type` and
    /// `status` rows name exactly the values the code can print.
    @Test func theJSONReferenceIsComplete() throws {
        let readme = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("docs/output.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let table =
            rows.drop { !$0.hasPrefix("| `schemaVersion` |") }.prefix { !$0.hasPrefix("| `nested` |") } + [
                "| `nested` |"
            ]
        #expect(table.map { $0.split(separator: "`")[1] }.map(String.init) == JSONRecord.keys)
        func values(_ key: String) -> Set<String> {
            let row = table.first { $0.hasPrefix("| `\(key)` |") } ?? ""
            let cell = row.split(separator: "|", omittingEmptySubsequences: true).dropFirst().first ?? ""
            let ticked = cell.split(separator: "`", omittingEmptySubsequences: false)
            return Set(stride(from: 1, to: ticked.count, by: 2).map { String(ticked[$0]) })
        }
        let kinds = Set(PayloadKind.allCases.map(\.rawValue) + [APIResponseRenderer.type, VerifyOfferV1Command.type])
        #expect(values("type") == kinds)
        let statuses = Set(
            Status.allCases.map(\.rawValue) + [Renderer.unreadableStatus] + FetchStatus.allCases.map(\.rawValue))
        #expect(values("status") == statuses)
    }

    /// The README is a newcomer's page (at most 300 lines: install, quick start, the tasks),
    /// the manual is docs/, one topic a page, each opening with a two-line summary, and
    /// SECURITY.md is a policy that says how to report (at most 200 lines).
    @Test func theDocumentationIsLaidOut() throws {
        func read(_ name: String) throws -> [Substring] {
            try String(contentsOf: CLI.packageRoot.appendingPathComponent(name), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
        }
        let readme = try read("README.md")
        #expect(readme.count <= 301, "README.md: \(readme.count) lines")
        for heading in ["## Install", "## Quick start", "## How do I…", "## Documentation"] {
            #expect(readme.contains(Substring(heading)), "README.md has no \(heading)")
        }
        let security = try read("SECURITY.md")
        #expect(security.count <= 201, "SECURITY.md: \(security.count) lines")
        for heading in ["## Supported versions", "## How to report", "## What to expect"] {
            #expect(security.contains(Substring(heading)), "SECURITY.md has no \(heading)")
        }
        let topics = [
            "inspecting", "access", "output", "exit-status", "receipts", "developer-tokens", "fetch", "timeline",
            "listen", "mint", "revocation", "batches", "threat-model", "install",
        ]
        for topic in topics {
            let page = try read("docs/\(topic).md")
            #expect(page[0].hasPrefix("# ") && page[1].isEmpty, "docs/\(topic).md: a title, then a blank line")
            #expect(
                page.count > 5 && !page[2].isEmpty && !page[3].isEmpty && page[4].isEmpty,
                "docs/\(topic).md opens with a two-line summary")
            #expect(readme.contains { $0.contains("(docs/\(topic).md") }, "the README links docs/\(topic).md")
        }
    }

    @Test func manPageHasItsSections() {
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES"] {
            #expect(ManPage.text.contains(".SH \(section)\n"), "\(section)")
        }
    }

    /// And renders without warnings.
    @Test(.enabled(if: installed("/usr/bin/groff"), "groff is not installed"))
    func manPageRenders() throws {
        for man in [ManPage.text] + ManPageTests.pages.map({ ManPage.text(for: Commands.named($0)!) }) {
            let groff = URL(fileURLWithPath: "/usr/bin/groff")
            let result = try CLI.runProgram(groff.path, ["-man", "-Tutf8", "-ww", "-z"], stdin: man)
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
    }

    // MARK: Completion scripts

    /// bash completes options, fixed values (after a space or `=`), subcommands and files.
    @Test func bashCompletes() throws {
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let script =
                CompletionScripts.bash
                + "\ncompopt() { :; }\nCOMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _jwsinspect; "
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
            let result = try CLI.runProgram("/bin/bash", [], stdin: script)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["jwsinspect", "--format", "js"]) == ["json", "jsonl"])
        #expect(try complete(["jwsinspect", "--format", "=", ""]) == ["table", "json", "jsonl"])
        #expect(try complete(["jwsinspect", "--environment", "S"]) == ["Sandbox"])
        #expect(try complete(["jwsinspect", "--type", "app"]) == ["appTransaction"])
        #expect(try complete(["jwsinspect", "--color", "n"]) == ["never"])
        #expect(try complete(["jwsinspect", "--jso"]) == ["--json"])
        #expect(try complete(["jwsinspect", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try complete(["jwsinspect", "help", "--m"]) == ["--man"])
        #expect(try complete(["jwsinspect", "comp"]).contains("completion"))
        let files = try complete(["jwsinspect", CLI.packageRoot.path + "/Samples/transaction-s"])
        #expect(files == [CLI.packageRoot.path + "/Samples/transaction-sandbox-2022.jws"])
        let roots = try complete(["jwsinspect", "--root", CLI.packageRoot.path + "/Certificates/AppleRootCA-G"])
        #expect(!roots.isEmpty && roots.allSatisfy { $0.contains("/Certificates/AppleRootCA-G") })
    }

    /// fish completes from its script: fixed values, subcommands' values, files.
    @Test(.enabled(if: installed("/usr/bin/fish"), "fish is not installed"))
    func fishCompletes() throws {
        let script = try CLI.temporaryDirectory().appendingPathComponent("jwsinspect.fish")
        try CLI.write(CompletionScripts.fish, to: script)
        func complete(_ line: String) throws -> [String] {
            let result = try CLI.runProgram("/usr/bin/fish", ["-c", "source '\(script.path)'; complete -C '\(line)'"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try complete("jwsinspect --format ") == ["json", "jsonl", "table"])
        #expect(try complete("jwsinspect --environment S") == ["Sandbox"])
        #expect(try complete("jwsinspect --color=") == ["--color=always", "--color=auto", "--color=never"])
        #expect(try complete("jwsinspect completion ") == ["bash", "fish", "zsh"])
        #expect(
            try complete("jwsinspect \(CLI.packageRoot.path)/Samples/transaction-s") == [
                "\(CLI.packageRoot.path)/Samples/transaction-sandbox-2022.jws"
            ])
    }

    static func installed(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Every subcommand is a candidate after `help`, in every shell.
    @Test func helpCompletesEverySubcommand() {
        let names = Commands.Name.allCases.map(\.rawValue).joined(separator: " ")
        let bash = CompletionScripts.bash.components(separatedBy: "    help)").last ?? ""
        #expect(bash.contains("COMPREPLY=($(compgen -W \"\(names)\" -- \"$cur\"))"))
        #expect(CompletionScripts.zsh.contains("'1:subcommand:(\(names))'"))
        #expect(CompletionScripts.fish.contains("-n '__fish_seen_subcommand_from help' -f -a '\(names)'"))
    }

    /// Descriptions keep their apostrophes and colons, quoted as each shell reads them, and a
    /// short option taking a value is offered as the parser reads it (`-j 2`, `-j2`), never `-j=`.
    @Test func completionDescriptionsAreQuotedNotMangled() throws {
        let zsh = CompletionScripts.zsh.split(separator: "\n").map(String.init)
        #expect(!zsh.contains { $0.contains("'-j=") || $0.contains("}'=") })
        #expect(zsh.contains { $0.contains("-j+[") })
        #expect(!CompletionScripts.zsh.contains("The app s ") && !CompletionScripts.fish.contains("The app s "))
        // The shell's own reading of the quoted spec (zsh quotes as POSIX shells do).
        let line = try #require(zsh.first { $0.contains("'--bundle-id=[") })
        let words = line.trimmingCharacters(in: .whitespaces).dropLast(2)
        let shell = Self.installed("/usr/bin/zsh") ? "/usr/bin/zsh" : "/bin/bash"
        let read = try CLI.runProgram(shell, ["-c", "printf '%s' \(words)"])
        #expect(read.stdout == "--bundle-id=[The app's bundle ID]:ID: ", "\(read.stdout) \(read.stderr)")
        let jobs = try #require(zsh.first { $0.contains("-j+[") })
        let readJobs = try CLI.runProgram(
            shell, ["-c", "printf '%s' \(jobs.trimmingCharacters(in: .whitespaces).dropLast(2))"])
        #expect(readJobs.stdout.contains("(default\\: one per core)"), "\(readJobs.stdout)")
        #expect(CompletionScripts.fish.contains("-d 'The app\\'s bundle ID'"))
        #expect(CompletionScripts.fish.contains("(default: one per core)"))
    }

    /// zsh parses its script (a test skipped, and reported so, where zsh is not installed).
    @Test(.enabled(if: installed("/usr/bin/zsh"), "zsh is not installed"))
    func zshParsesItsScript() throws {
        let result = try CLI.runProgram("/usr/bin/zsh", ["-n"], stdin: CompletionScripts.zsh)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(.enabled(if: installed("/usr/bin/fish"), "fish is not installed"))
    func fishParsesItsScript() throws {
        let result = try CLI.runProgram("/usr/bin/fish", ["--no-execute"], stdin: CompletionScripts.fish)
        #expect(result.status == 0, "\(result.stderr)")
    }
}

/// The manual pages: their list, the version's date.
@Suite(.timeLimit(.minutes(10))) struct ManPageTests {
    /// The subcommands with a page of their own: every one but inspect (the top page) and help.
    static let pages = Commands.Name.allCases.filter { $0 != .inspect && $0 != .help }.map(\.rawValue)

    /// `make install` installs exactly these pages.
    @Test func makeInstallInstallsEveryPage() throws {
        let makefile = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("MANPAGES := ") })
        #expect(line.dropFirst("MANPAGES := ".count).split(separator: " ").map(String.init) == Self.pages)
    }

    @Test func theVersionDateIsADate() {
        let parts = HelpText.versionDate.split(separator: "-")
        #expect(parts.count == 3 && parts.map(\.count) == [4, 2, 2] && parts.allSatisfy { Int($0) != nil })
    }
}
