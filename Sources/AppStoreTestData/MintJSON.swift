package import JWSInspectCore

extension MintPayloads {
    /// `--set PATH=VALUE`: PATH dotted (`price`, `data.status`), VALUE parsed as JSON when it is JSON
    /// (`9990`, `true`, `"x"`, `{"a":1}`, `null`), else taken as the string it is. Missing intermediate
    /// objects are created; an existing member is replaced in place, a new one added at the end.
    /// Nested prefixes (`transaction.…`) are the caller's to route. PATH is bounded as templates
    /// are: at most `OrderedJSON.maximumParseDepth` levels and `maximumPathLength` bytes. The
    /// caller names the assignment in its messages; these say what is wrong with it.
    package static func set(_ assignment: String, in object: inout OrderedJSON.Object) throws(MintError) {
        guard let equals = assignment.firstIndex(of: "=") else { throw MintError("expected PATH=VALUE") }
        let path = try path(assignment[..<equals])
        let text = Array(assignment.utf8[assignment.utf8.index(after: equals)...])
        let value = (try? OrderedJSON.parse(text)) ?? .string(String(decoding: text, as: UTF8.self))
        try assign(value, at: path[...], in: &object, whole: path)
    }

    /// `--unset PATH`: removes the member at a dotted path (bounded as `set`'s); an error when
    /// there is none.
    package static func remove(_ pathText: String, from object: inout OrderedJSON.Object) throws(MintError) {
        let path = try path(pathText[...])
        try remove(at: path[...], in: &object, whole: path)
    }

    private static func remove(
        at path: ArraySlice<String>, in object: inout OrderedJSON.Object, whole: [String]
    ) throws(MintError) {
        guard let key = path.first else { return }
        if path.count == 1, object[key] != nil {
            object[key] = nil
            return
        }
        guard path.count > 1, case .object(var inner)? = object[key] else {
            throw MintError("the payload has no member \(whole.joined(separator: ".")) to remove")
        }
        try remove(at: path.dropFirst(), in: &inner, whole: whole)
        object[key] = .object(inner)
    }

    /// A dotted path's member names, bounded as templates are.
    private static func path(_ pathText: Substring) throws(MintError) -> [String] {
        let levels = pathText.utf8.count { $0 == UInt8(ascii: ".") } + 1
        guard levels <= OrderedJSON.maximumParseDepth else {
            throw MintError(
                "the path has \(levels) levels, over the \(OrderedJSON.maximumParseDepth) a payload may nest (as in "
                    + "templates)")
        }
        guard pathText.utf8.count <= maximumPathLength else {
            throw MintError("the path is \(pathText.utf8.count) bytes, over the \(maximumPathLength) allowed")
        }
        let path = pathText.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.contains(where: \.isEmpty) else { throw MintError("the path has an empty member name") }
        return path
    }

    /// The longest `--set` PATH, in bytes: 64 levels of 64-byte names.
    package static let maximumPathLength = 4096

    private static func assign(
        _ value: OrderedJSON, at path: ArraySlice<String>, in object: inout OrderedJSON.Object, whole: [String]
    ) throws(MintError) {
        guard let key = path.first else { return }
        if path.count == 1 {
            object[key] = value
            return
        }
        var inner: OrderedJSON.Object
        switch object[key] {
        case nil: inner = OrderedJSON.Object()
        case .object(let existing)?: inner = existing
        case let other?:
            let name = whole[..<(whole.count - path.count + 1)].joined(separator: ".")
            throw MintError("cannot set \(whole.joined(separator: ".")): \(name) is \(other.kindName), not an object")
        }
        try assign(value, at: path.dropFirst(), in: &inner, whole: whole)
        object[key] = .object(inner)
    }

    /// `--from TEMPLATE.json`: the template's members replace the payload's (in place) or are added
    /// (at the end); where both are objects, recursively.
    package static func merge(_ template: OrderedJSON.Object, into object: inout OrderedJSON.Object) {
        for (key, value) in template.members {
            if case .object(let inner)? = object[key], case .object(let innerTemplate) = value {
                var merged = inner
                merge(innerTemplate, into: &merged)
                object[key] = .object(merged)
            } else {
                object[key] = value
            }
        }
    }

    /// Parses a JSON object (a template), keeping its members' order, with a recursive-descent
    /// parser (RFC 8259, strict: no comments, no trailing commas, no duplicate members, UTF-8,
    /// nested at most 64 deep). Integers that fit are `.integer`, other finite numbers `.double`.
    package static func object(json: [UInt8]) throws(MintError) -> OrderedJSON.Object {
        let value: OrderedJSON
        do { value = try OrderedJSON.parse(json) } catch { throw MintError(error.description) }
        guard case .object(let object) = value else {
            throw MintError("the template is not a JSON object")
        }
        return object
    }
}

extension OrderedJSON.Object {
    /// Compact UTF-8 JSON in member order (RFC 8259: strings escaped, no whitespace), the bytes to sign.
    package var jsonBytes: [UInt8] { OrderedJSON.object(self).bytes }
}
