/// `chain-path`: the path OpenSSL validated is exactly x5c[0] -> x5c[1] -> a trusted root.
///
/// Decided with `chain`, from the same validation (`AppStoreChain`).
enum ChainPathPolicy: VerifierPolicy {
    static let name = Check.Name("chain-path", failing: .invalidChain)
    static let payloadMembers: [String] = []

    /// The check on a validated `path` for the x5c pair (`leaf`, `intermediate`).
    static func check(_ path: [Certificate], leaf: Certificate, intermediate: Certificate) -> Check {
        if path.count == 3 && path[0] === leaf && path[1] === intermediate {
            return Check(name, passed: true, "the validated path is x5c[0] -> x5c[1] -> trusted root")
        }
        return Check(name, passed: false, Detail(path: path))
    }

    /// A validated path other than the x5c pair's.
    struct Detail: CheckDetail {
        let path: [Certificate]

        var text: String {
            let names = path.map(\.quotedName).joined(separator: " -> ")
            return "the validated path \(names) does not run x5c[0] -> x5c[1] -> trusted root"
        }
    }
}

extension Check.Name {
    package static let chainPath = ChainPathPolicy.name
}
