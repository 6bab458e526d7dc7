internal import AppStoreTestData
internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect mint transaction|renewalInfo|notification|appTransaction|realtimeRequest`:
/// one App Store-shaped JWS signed by a `mint ca` folder's leaf, its `x5c` that folder's chain.
extension MintCommand {
    /// Why a token cannot be minted: the message and the exit status.
    struct Failure: Error {
        let message: String
        let status: ExitStatus
    }

    /// The prefixes of `--set` that reach a notification's nested payloads.
    static let nestedPrefixes: [(prefix: String, kind: MintKind)] = [
        ("transaction.", .transaction), ("renewalInfo.", .renewalInfo), ("renewal-info.", .renewalInfo),
        ("appTransaction.", .appTransaction), ("app-transaction.", .appTransaction),
    ]

    static func mintToken(_ kind: MintKind, _ options: MintOptions, io: CommandIO) -> Int32 {
        do throws(Failure) {
            let signer = try Signer(folder: options.ca ?? ".")
            let context = MintContext(
                bundleID: options.bundleID ?? "com.example.app", environment: options.environment ?? "Sandbox",
                now: io.now, notificationType: options.notificationType, subtype: options.subtype)
            var (own, nested) = try assignments(options.assignments, kind: kind)
            let (ownRemovals, removalsByKind) = try assignments(options.removals, kind: kind)
            var nestedRemovals = removalsByKind
            var payload = MintPayloads.payload(kind, context: context)
            if let template = options.template { try merge(template: template, into: &payload) }
            let allowsUnknown = options.allowsUnknownField
            // A notification's nested tokens, signed first, set by the paths its kind documents.
            var nestedTokens: [String] = []
            if kind == .notification {
                for (path, nestedKind) in MintPayloads.nestedKinds(
                    notificationType: options.notificationType, subtype: options.subtype)
                {
                    var inner = MintPayloads.payload(nestedKind, context: context)
                    try apply(nested[nestedKind] ?? [], to: &inner, kind: nestedKind, allowsUnknown: allowsUnknown)
                    try remove(nestedRemovals[nestedKind] ?? [], from: &inner)
                    nested[nestedKind] = nil
                    nestedRemovals[nestedKind] = nil
                    nestedTokens.insert(
                        "\(path.joined(separator: "."))=\"\(try signer.sign(inner.jsonBytes))\"", at: 0)
                }
                if let unused = nested.keys.first ?? nestedRemovals.keys.first {
                    let option = nested.keys.first != nil ? "--set" : "--unset"
                    throw Failure(
                        message: "mint notification: \(option) \(unused.rawValue).… but a \(options.notificationType) "
                            + "notification nests no \(unused.rawValue)",
                        status: .usage)
                }
            }
            try apply(nestedTokens, to: &payload, kind: kind, allowsUnknown: true)
            try apply(own, to: &payload, kind: kind, allowsUnknown: allowsUnknown)
            try remove(ownRemovals, from: &payload)
            let jws = try signer.sign(payload.jsonBytes)
            let text = ResultRenderers.make(format: options.format, quiet: options.output.quiet).single {
                jws + "\n"
            } record: {
                TokenRecord.record(type: kind.rawValue, jws: jws, payload: .object(payload))
            }
            return Output.print(text, io: io)
        } catch {
            io.error(error.message)
            if error.status == .usage {
                io.error("usage: jwsinspect \(Commands.mint.usage[1]) (see jwsinspect help mint)")
            }
            return error.status.rawValue
        }
    }

    /// `--set` assignments split into the payload's own and, for a notification, each nested kind's.
    private static func assignments(_ all: [String], kind: MintKind) throws(Failure)
        -> (own: [String], nested: [MintKind: [String]])
    {
        var own: [String] = []
        var nested: [MintKind: [String]] = [:]
        for assignment in all {
            if kind == .notification, let route = nestedPrefixes.first(where: { assignment.hasPrefix($0.prefix) }) {
                nested[route.kind, default: []].append(String(assignment.dropFirst(route.prefix.count)))
            } else {
                own.append(assignment)
            }
        }
        return (own, nested)
    }

    /// `--set`s, in order; one whose member name is neither in the payload nor documented by
    /// Apple for `kind` is refused (a typo: `productid`, `data.statsu`) unless `allowsUnknown`:
    /// the first name of its path, and in a notification the name under a body Apple documents
    /// (`data`, `summary`, `externalPurchaseToken`, `appData`). Deeper names are set as given.
    private static func apply(
        _ assignments: [String], to payload: inout OrderedJSON.Object, kind: MintKind, allowsUnknown: Bool
    ) throws(Failure) {
        let documented = PayloadKind(rawValue: kind.rawValue).map { PayloadSchema.of($0).documentedFields } ?? []
        for assignment in assignments {
            let path = assignment.prefix { $0 != "=" }.split(separator: ".", omittingEmptySubsequences: false)
                .map(String.init)
            let name = path[0]
            let present = payload[name] != nil
            // The name under a notification body, and the body's documented members.
            var inner: (name: String, present: Bool, documented: [String])?
            if kind == .notification, path.count > 1, let body = NotificationBody.named(name) {
                var held = false
                if case .object(let object)? = payload[name] { held = object[path[1]] != nil }
                inner = (path[1], held, body.fields)
            }
            // What is wrong with the assignment itself first, then whether its member is meant
            // (a refusal ends the mint, so the payload set here is never signed).
            do {
                try MintPayloads.set(assignment, in: &payload)
            } catch {
                throw Failure(message: "mint: --set \(Excerpt.of(assignment)): \(error.description)", status: .usage)
            }
            guard !allowsUnknown else { continue }
            if !present, !documented.contains(name) {
                throw unknown(assignment, name, documented: documented, in: "a \(kind.hyphenated) payload")
            }
            if let inner, !inner.present, !inner.documented.contains(inner.name) {
                throw unknown(assignment, inner.name, documented: inner.documented, in: "a notification's \(name)")
            }
        }
    }

    /// The refusal of a member name Apple does not document, with the name meant when it is close.
    private static func unknown(_ assignment: String, _ name: String, documented: [String], in place: String)
        -> Failure
    {
        let meant =
            documented.first { $0.lowercased() == name.lowercased() }
            ?? EditDistance.closest(to: name, among: documented)
        return Failure(
            message: "mint: --set \(Excerpt.of(assignment)): '\(Excerpt.of(name))' is not a member Apple documents for "
                + place + (meant.map { " (did you mean '\($0)'?)" } ?? "") + "; --allow-unknown-field adds it as given",
            status: .usage)
    }

    /// `--unset`s, in order.
    private static func remove(_ paths: [String], from payload: inout OrderedJSON.Object) throws(Failure) {
        for path in paths {
            do {
                try MintPayloads.remove(path, from: &payload)
            } catch {
                throw Failure(message: "mint: --unset \(Excerpt.of(path)): \(error.description)", status: .usage)
            }
        }
    }

    private static func merge(template path: String, into payload: inout OrderedJSON.Object) throws(Failure) {
        switch System.readFile(path, limit: 1 << 20) {
        case .failure(let error):
            throw Failure(message: "mint: cannot read --from '\(Excerpt.of(path))': \(error)", status: .unreadable)
        case .success(nil):
            throw Failure(message: "mint: --from '\(Excerpt.of(path))' is over 1 MiB", status: .usage)
        case .success(let bytes?):
            do {
                MintPayloads.merge(try MintPayloads.object(json: bytes), into: &payload)
            } catch {
                throw Failure(message: "mint: --from '\(Excerpt.of(path))': \(error.description)", status: .usage)
            }
        }
    }

    /// One file of a `mint ca` folder (at most 64 KiB).
    ///
    /// - Parameter command: how messages name the command ("mint", "mint suite").
    static func readCAFile(_ name: String, in folder: String, for command: String) throws(Failure) -> [UInt8] {
        switch System.readFile(System.path(name, in: folder), limit: 64 * 1024) {
        case .failure(let error):
            throw Failure(
                message: "\(command): cannot read \(name) in the CA folder '\(Excerpt.of(folder))': \(error)",
                status: .unreadable)
        case .success(nil):
            throw Failure(
                message: "\(command): \(name) in the CA folder '\(Excerpt.of(folder))' is over 64 KiB", status: .usage)
        case .success(let bytes?): return bytes
        }
    }

    /// A `mint ca` folder's leaf key and chain, read and checked once.
    struct Signer {
        let key: PrivateKey
        let header: String

        init(folder: String) throws(Failure) {
            func read(_ name: String) throws(Failure) -> [UInt8] { try readCAFile(name, in: folder, for: "mint") }
            let keyFile: KeyFile
            do {
                keyFile = try KeyFile(bytes: try read("leaf-key.p8"), path: "leaf-key.p8")
            } catch let error as Failure {
                throw error
            } catch {
                throw Failure(message: "mint: \(folder)/leaf-key.p8: \(error)", status: .usage)
            }
            guard let key = keyFile.privateKey else {
                throw Failure(message: "mint: \(folder)/leaf-key.p8 holds no private key", status: .usage)
            }
            var x5c: [String] = []
            for name in ["leaf.der", "intermediate.der", "root.der"] {
                let der = try read(name)
                guard (try? Certificate(derBytes: der)) != nil else {
                    throw Failure(message: "mint: \(folder)/\(name) is not a DER certificate", status: .usage)
                }
                x5c.append("\"" + Data(der).base64EncodedString() + "\"")
            }
            self.key = key
            self.header = "{\"alg\":\"ES256\",\"x5c\":[\(x5c.joined(separator: ","))]}"
        }

        /// A compact JWS over `payload` with the folder's header.
        func sign(_ payload: [UInt8]) throws(Failure) -> String {
            let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
            do {
                return signingInput + "." + Base64URL.encode(try key.signES256(Array(signingInput.utf8)))
            } catch {
                throw Failure(message: "mint: signing failed: \(error)", status: .software)
            }
        }
    }
}
