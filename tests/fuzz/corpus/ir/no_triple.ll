define void @helper(ptr %p) {
  store i32 0, ptr %p
  ret void
}
