/// Apple's marker extensions, as `leaf-oid` and `intermediate-oid` check them.
///
/// Their checks are made once per (leaf, intermediate) pair and kept by the cache with it
/// (`VerificationCache.ChainEntry.pairChecks`), so their details are put into words once, when
/// made, rather than at every read of every token that shares the pair.
enum MarkerExtension {
    /// Whether `certificate` carries the extension `oid`, as the check `name`.
    ///
    /// - Parameter role: "leaf" or "intermediate", for messages.
    static func check(_ name: Check.Name, _ certificate: Certificate, oid: String, role: String) -> Check {
        if let value = certificate.extensionValue(oid: oid) {
            let shown = value == [0x05, 0x00] ? "NULL" : "0x" + value.hexString()
            return Check(name, passed: true, "the \(role) carries \(oid) (value \(shown))")
        }
        return Check(name, passed: false, "the \(role) \(certificate.quotedName) lacks Apple's marker extension \(oid)")
    }
}
