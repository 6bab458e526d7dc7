internal import FoundationEssentials
internal import JWSInspectCore
internal import TestPKI

/// `jwsinspect mint suite --ca DIR --out DIR2`: `MintSuite`'s cases, one file each, and
/// `manifest.json` saying what each is, what Apple's algorithm decides and what jwsinspect answers.
extension MintCommand {
    static func writeSuite(_ options: MintOptions, io: CommandIO) -> Int32 {
        let folder = options.ca ?? "."
        let out = options.out ?? "."
        var files: [String: [UInt8]] = [:]
        for name in ["root.der", "root-key.p8", "intermediate.der", "intermediate-key.p8", "leaf.der", "leaf-key.p8"] {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            switch System.readFile(path, limit: 64 * 1024) {
            case .success(let bytes?): files[name] = bytes
            case .success(nil):
                io.error("mint suite: \(name) in the CA folder '\(Excerpt.of(folder))' is over 64 KiB")
                return ExitStatus.usage.rawValue
            case .failure(let error):
                io.error("mint suite: cannot read \(name) in the CA folder '\(Excerpt.of(folder))': \(error)")
                return ExitStatus.unreadable.rawValue
            }
        }
        guard
            let ca = MintedCA(
                rootDER: files["root.der"]!, rootKey: files["root-key.p8"]!,
                intermediateDER: files["intermediate.der"]!,
                intermediateKey: files["intermediate-key.p8"]!, leafDER: files["leaf.der"]!,
                leafKey: files["leaf-key.p8"]!),
            let root = try? Certificate(derBytes: ca.root.der)
        else {
            io.error(
                "mint suite: '\(Excerpt.of(folder))' is not a folder mint ca wrote (its certificates or keys do not read)"
            )
            return ExitStatus.usage.rawValue
        }
        guard prepare(out, for: "suite", force: options.force, io: io) else { return ExitStatus.ioError.rawValue }
        let environment = options.environment ?? "Sandbox"
        let context = MintContext(
            bundleID: options.bundleID ?? "com.example.app", environment: environment, now: io.now)
        var verification = VerificationOptions(trustStore: TrustStore(roots: [root]))
        verification.now = io.now
        verification.expectedBundleId = context.bundleID
        verification.expectedEnvironment = Environment(rawValue: environment)
        let verifier = Verifier(options: verification)
        var manifest: [String] = []
        for (index, item) in MintSuite.cases(ca, context: context).enumerated() {
            let file = (index < 9 ? "0" : "") + "\(index + 1)-\(item.name).jws"
            let status = ExitStatus(verifier.inspect(item.token, source: file).status).rawValue
            let path = out.hasSuffix("/") ? out + file : out + "/" + file
            if let reason = System.writeFile(path, Array((item.token + "\n").utf8), mode: 0o644) {
                io.error("mint suite: cannot write '\(Excerpt.of(path))': \(reason)")
                return ExitStatus.ioError.rawValue
            }
            manifest.append(
                "    {\"file\": \"\(file)\", \"type\": \"\(item.type.rawValue)\", \"expect\": \"\(item.expect ? "valid" : "invalid")\", "
                    + "\"defect\": \"\(item.defect)\", \"exitCode\": \(status), \"description\": \(json(item.description))}"
            )
        }
        let text = "{\"cases\": [\n" + manifest.joined(separator: ",\n") + "\n]}\n"
        let manifestPath = out.hasSuffix("/") ? out + "manifest.json" : out + "/manifest.json"
        if let reason = System.writeFile(manifestPath, Array(text.utf8), mode: 0o644) {
            io.error("mint suite: cannot write '\(Excerpt.of(manifestPath))': \(reason)")
            return ExitStatus.ioError.rawValue
        }
        return Output.print(
            "\(manifest.count) cases in \(out) (manifest.json): check each with --root \(folder)/root.der "
                + "--bundle-id \(context.bundleID) --environment \(environment)\n", io: io)
    }

    /// A JSON string literal.
    private static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
