/// Apple's marker extensions, as `leaf-oid` and `intermediate-oid` check them.
enum MarkerExtension {
    /// Whether `certificate` carries the extension `oid`, as the check `name`.
    ///
    /// - Parameter role: "leaf" or "intermediate", for messages.
    static func check(_ name: Check.Name, _ certificate: Certificate, oid: String, role: String) -> Check {
        let value = certificate.extensionValue(oid: oid)
        return Check(name, passed: value != nil, Detail(certificate: certificate, oid: oid, role: role, value: value))
    }

    /// The extension's value when present, the certificate's name when not.
    struct Detail: CheckDetail {
        let certificate: Certificate
        let oid: String
        let role: String
        let value: [UInt8]?

        var text: String {
            guard let value else {
                return "the \(role) \(Run.name(certificate)) lacks Apple's marker extension \(oid)"
            }
            let shown = value == [0x05, 0x00] ? "NULL" : "0x" + value.hexString()
            return "the \(role) carries \(oid) (value \(shown))"
        }
    }
}
