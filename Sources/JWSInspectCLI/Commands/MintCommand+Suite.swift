internal import AppStoreTestData
internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect mint suite --ca DIR --out DIR2`: `MintSuite`'s cases, one file each, and
/// `manifest.json` saying what each is, what Apple's algorithm decides and what jwsinspect answers.
extension MintCommand {
    static func writeSuite(_ options: MintOptions, io: CommandIO) -> Int32 {
        let folder = options.ca ?? "."
        let out = options.out ?? "."
        var files: [String: [UInt8]] = [:]
        for name in ["root.der", "root-key.p8", "intermediate.der", "intermediate-key.p8", "leaf.der", "leaf-key.p8"] {
            do throws(Failure) {
                files[name] = try readCAFile(name, in: folder, for: "mint suite")
            } catch {
                io.error(error.message)
                return error.status.rawValue
            }
        }
        let ca: MintedCA
        let root: Certificate
        do {
            ca = try MintedCA(
                rootDER: files["root.der"]!, rootKey: files["root-key.p8"]!,
                intermediateDER: files["intermediate.der"]!, intermediateKey: files["intermediate-key.p8"]!,
                leafDER: files["leaf.der"]!, leafKey: files["leaf-key.p8"]!)
            root = ca.root.certificate
        } catch {
            io.error("mint suite: '\(Excerpt.of(folder))' is not a folder mint ca wrote: \(error)")
            return ExitStatus.usage.rawValue
        }
        guard prepare(out, for: "suite", force: options.force, io: io) else { return ExitStatus.ioError.rawValue }
        let environment = options.environment ?? "Sandbox"
        let context = MintContext(
            bundleID: options.bundleID ?? "com.example.app", environment: environment, now: io.now)
        var verification = VerificationOptions(trustStore: TrustStore(roots: [root]))
        verification.now = io.now
        verification.hints = OptionHints()
        verification.expectedBundleId = context.bundleID
        verification.expectedEnvironment = Environment(rawValue: environment)
        let verifier = Verifier(options: verification)
        var manifest: [String] = []
        let cases: [MintSuite.Case]
        do {
            cases = try MintSuite.cases(ca, context: context)
        } catch {
            io.error("mint suite: \(error)")
            return ExitStatus.software.rawValue
        }
        for (index, item) in cases.enumerated() {
            let file = (index < 9 ? "0" : "") + "\(index + 1)-\(item.name).jws"
            let status = ExitStatus(verifier.inspect(item.token, source: file).status).rawValue
            let path = System.path(file, in: out)
            if let reason = System.writeFile(path, Array((item.token + "\n").utf8), mode: 0o644) {
                io.error("mint suite: cannot write '\(Excerpt.of(path))': \(reason)")
                return ExitStatus.ioError.rawValue
            }
            manifest.append(
                "    {\"file\": \"\(file)\", \"type\": \"\(item.type.rawValue)\", \"expect\": \"\(item.expect ? "valid" : "invalid")\", "
                    + "\"defect\": \"\(item.defect)\", \"exitCode\": \(status), \"description\": \(TestData.jsonString(item.description))}"
            )
        }
        let text = "{\"cases\": [\n" + manifest.joined(separator: ",\n") + "\n]}\n"
        let manifestPath = System.path("manifest.json", in: out)
        if let reason = System.writeFile(manifestPath, Array(text.utf8), mode: 0o644) {
            io.error("mint suite: cannot write '\(Excerpt.of(manifestPath))': \(reason)")
            return ExitStatus.ioError.rawValue
        }
        return Output.print(
            "\(manifest.count) cases in \(out) (manifest.json): check each with --root \(folder)/root.der "
                + "--bundle-id \(context.bundleID) --environment \(environment)\n", io: io)
    }
}
