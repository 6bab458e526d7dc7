internal import AppStoreTestData
internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect mint`: an Apple-shaped test PKI of one's own (`mint ca`), and App Store-shaped
/// data signed with it (`MintCommand+Token.swift`), for testing backends with data they
/// control. Nothing it makes is Apple's, and says so.
enum MintCommand {
    static func run(_ options: MintOptions, io: CommandIO) -> Int32 {
        guard !options.showHelp, let kind = options.kind else {
            return Output.print(HelpText.of(Commands.mint), io: io)
        }
        switch kind {
        case .ca: return writeCA(to: options.out ?? ".", options, io: io)
        case .token(let kind): return mintToken(kind, options, io: io)
        case .suite: return writeSuite(options, io: io)
        case .timeline: return mintTimeline(options, io: io)
        }
    }

    /// Makes `folder` ready to write to: created when missing; refused (said on standard error)
    /// when it is not a folder, not empty without `--force`, or one others could change
    /// (`System.prepareFolder`).
    static func prepare(_ folder: String, for command: String, force: Bool, io: CommandIO) -> Bool {
        switch System.kind(ofPath: folder) {
        case .directory?:
            guard force || System.isEmptyDirectory(folder) == true else {
                io.error("mint \(command): '\(Excerpt.of(folder))' is not empty; use --force to write into it")
                return false
            }
        case nil:
            break
        default:
            io.error("mint \(command): '\(Excerpt.of(folder))' exists and is not a folder")
            return false
        }
        if let failure = System.prepareFolder(folder) {
            io.error("mint \(command): \(failure.message(Excerpt.of(folder)))")
            return false
        }
        return true
    }

    /// Creates `folder` (refusing one that is not empty without `--force`), writes the CA's
    /// files (the leaf's key readable by its owner only), and says what it wrote.
    private static func writeCA(to folder: String, _ options: MintOptions, io: CommandIO) -> Int32 {
        guard prepare(folder, for: "ca", force: options.force, io: io) else { return ExitStatus.ioError.rawValue }
        let ca: MintedCA
        let files: [MintedCA.File]
        do {
            ca = try MintedCA(
                validDays: options.validDays, rootCurve: options.rootCurve, now: io.now,
                ocspURLs: (options.intermediateOCSPURL ?? options.ocspURL, options.ocspURL),
                backdateDays: options.backdateDays)
            files = try ca.files()
        } catch {
            io.error("mint ca: \(error)")
            return ExitStatus.software.rawValue
        }
        for file in files {
            let path = System.path(file.name, in: folder)
            if let reason = System.writeFile(path, file.bytes, mode: file.isSecret ? 0o600 : 0o644) {
                io.error("mint ca: cannot write '\(Excerpt.of(path))': \(reason)")
                return ExitStatus.ioError.rawValue
            }
        }
        let root = System.path("root.der", in: folder)
        let validity = "\(ISO8601.string(ca.leaf.spec.notBefore)) to \(ISO8601.string(ca.leaf.spec.notAfter))"
        return Output.print(
            """
            a jwsinspect test CA (NOT Apple's) in \(folder): \(files.map(\.name).joined(separator: ", "))
            valid \(validity); trust it with --root \(root)

            """, io: io)
    }
}
