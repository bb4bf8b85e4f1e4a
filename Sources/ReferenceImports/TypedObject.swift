/// One value of a result bundle's typed object text: a string, or an object with a type name,
/// keyed fields and (for arrays) items.
indirect enum TypedValue {
  case text(String)
  case object(TypedObject)

  var object: TypedObject? {
    if case .object(let object) = self { object } else { nil }
  }
}

/// An object of the typed text: `[` type, then `K<n>:key` value pairs and `[...]` items, `]`.
struct TypedObject {
  var type: String
  var fields: [(key: String, value: TypedValue)] = []
  var items: [TypedObject] = []

  /// The object held by a field.
  subscript(key: String) -> TypedObject? {
    fields.first { $0.key == key }?.value.object
  }

  /// A scalar field's text (`[S6:String K2:_v V5:hello]`).
  func string(_ key: String) -> String? {
    guard let scalar = self[key],
      case .text(let text)? = scalar.fields.first(where: {
        $0.key == "_v"
      })?.value
    else { return nil }
    return text
  }

  /// The items of an array field.
  func array(_ key: String) -> [TypedObject] { self[key]?.items ?? [] }

  /// Calls `body` for this object and every object inside it, depth first, in order.
  func forEachObject(_ body: (TypedObject) -> Void) {
    body(self)
    for field in fields { field.value.object?.forEachObject(body) }
    for item in items { item.forEachObject(body) }
  }

  /// Calls `body` for every `ActionTestAttachment` inside this object, depth first, with the
  /// title of the innermost `ActionTestActivitySummary` holding it (or `activity`).
  func forEachAttachment(activity: String?, _ body: (TypedObject, String?) -> Void) {
    if type == "ActionTestAttachment" { return body(self, activity) }
    let inner = type == "ActionTestActivitySummary" ? string("title") ?? activity : activity
    for field in fields { field.value.object?.forEachAttachment(activity: inner, body) }
    for item in items { item.forEachAttachment(activity: inner, body) }
  }
}
