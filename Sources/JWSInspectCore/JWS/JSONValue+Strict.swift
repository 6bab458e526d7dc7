internal import FoundationEssentials

extension JSONValue {
    /// A JSON text read as strictly as a JWS payload is (RFC 8259: UTF-8 without a byte order
    /// mark, `JSONSyntax`'s strict check, then Foundation's decoder), that must be one object:
    /// its members, or why not in one line. For bodies that are not signed but decide what is
    /// read next (the App Store Server API's answers).
    ///
    /// An object that names a member twice (at any depth) is refused: it reads two ways.
    package static func strictObject(_ bytes: [UInt8]) -> Result<[String: JSONValue], StrictJSONError> {
        let decodable: [UInt8]
        switch CompactJWS.strictText(bytes) {
        case .success(let copy): decodable = copy ?? bytes
        case .failure(let failure): return .failure(failure)
        }
        do {
            // The strict check refused any member named twice: `decode`'s member check is not run again.
            guard case .object(let members) = try decodeUnchecked(decodable) else { return .failure(.notAnObject) }
            return .success(members)
        } catch {
            return .failure(.notJSON(describeFailure(error, bytes: bytes)))
        }
    }
}

/// Why a text is not one strict JSON object (`JSONValue.strictObject`).
package enum StrictJSONError: Error, Sendable, Equatable {
    /// Not JSON text, and why ("a trailing comma at byte 41", "it is not valid UTF-8").
    case notJSON(String)
    /// JSON, but an array, a string, a number, a literal.
    case notAnObject
    /// An object names a member twice.
    case duplicateMember(DuplicateMember)
}
