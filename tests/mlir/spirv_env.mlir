// A gpu.module for #spirv.target_env: its body is a spirv.module (OpenCL kernels,
// as convert-gpu-to-spirv writes them), which MLIR's own SPIR-V serialiser writes.
// Two kernels: y[i] = a * x[i] + y[i], and a copy that reads the global id too.
module attributes {gpu.container_module} {
  gpu.module @axpy [#spirv.target_env<#spirv.vce<v1.0, [Addresses, Int64, Kernel, Linkage], []>, api=OpenCL, #spirv.resource_limits<>>] {
    spirv.module @__spv__axpy Physical64 OpenCL requires #spirv.vce<v1.0, [Addresses, Int64, Kernel, Linkage], []> {
      spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi64>, Input>
      spirv.func @saxpy(%a: f32, %x: !spirv.ptr<f32, CrossWorkgroup>, %y: !spirv.ptr<f32, CrossWorkgroup>) "None" attributes {workgroup_attributions = 0 : i64} {
        %p = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi64>, Input>
        %v = spirv.Load "Input" %p : vector<3xi64>
        %i = spirv.CompositeExtract %v[0 : i32] : vector<3xi64>
        %xp = spirv.InBoundsPtrAccessChain %x[%i] : !spirv.ptr<f32, CrossWorkgroup>, i64 -> !spirv.ptr<f32, CrossWorkgroup>
        %yp = spirv.InBoundsPtrAccessChain %y[%i] : !spirv.ptr<f32, CrossWorkgroup>, i64 -> !spirv.ptr<f32, CrossWorkgroup>
        %xv = spirv.Load "CrossWorkgroup" %xp : f32
        %yv = spirv.Load "CrossWorkgroup" %yp : f32
        %m = spirv.FMul %a, %xv : f32
        %s = spirv.FAdd %m, %yv : f32
        spirv.Store "CrossWorkgroup" %yp, %s : f32
        spirv.Return
      }
      spirv.func @copy(%x: !spirv.ptr<f32, CrossWorkgroup>, %y: !spirv.ptr<f32, CrossWorkgroup>) "None" attributes {workgroup_attributions = 0 : i64} {
        %p = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi64>, Input>
        %v = spirv.Load "Input" %p : vector<3xi64>
        %i = spirv.CompositeExtract %v[0 : i32] : vector<3xi64>
        %xp = spirv.InBoundsPtrAccessChain %x[%i] : !spirv.ptr<f32, CrossWorkgroup>, i64 -> !spirv.ptr<f32, CrossWorkgroup>
        %yp = spirv.InBoundsPtrAccessChain %y[%i] : !spirv.ptr<f32, CrossWorkgroup>, i64 -> !spirv.ptr<f32, CrossWorkgroup>
        %xv = spirv.Load "CrossWorkgroup" %xp : f32
        spirv.Store "CrossWorkgroup" %yp, %xv : f32
        spirv.Return
      }
      spirv.EntryPoint "Kernel" @saxpy, @gid
      spirv.EntryPoint "Kernel" @copy, @gid
    }
  }
}
